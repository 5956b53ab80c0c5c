import { PublicKey } from "@solana/web3.js"
import { Either } from "effect"
import { type AdapterInputError, invalidField } from "./adapterError.js"

/** Reads typed values out of an intent object; every failure names the field. */

export const U64_MAX = 18_446_744_073_709_551_615n

const BASE58 = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/

export interface FieldContext {
  readonly protocol: string
  readonly operation: string
}

export const readAddress = (
  ctx: FieldContext,
  intent: Readonly<Record<string, unknown>>,
  field: string
): Either.Either<PublicKey, AdapterInputError> => {
  const raw = intent[field]
  if (raw === undefined || raw === null) return Either.left(invalidField(ctx.protocol, ctx.operation, field, "is required"))
  if (typeof raw !== "string" || !BASE58.test(raw)) {
    return Either.left(invalidField(ctx.protocol, ctx.operation, field, "must be a base58 address"))
  }
  try {
    return Either.right(new PublicKey(raw))
  } catch {
    return Either.left(invalidField(ctx.protocol, ctx.operation, field, "must be a base58 address of 32 bytes"))
  }
}

export const readOptionalAddress = (
  ctx: FieldContext,
  intent: Readonly<Record<string, unknown>>,
  field: string
): Either.Either<PublicKey | null, AdapterInputError> =>
  intent[field] === undefined || intent[field] === null ? Either.right(null) : readAddress(ctx, intent, field)

/** A positive u64 given as a JSON integer, a decimal string, or already decoded (bigint). */
export const readPositiveU64 = (
  ctx: FieldContext,
  intent: Readonly<Record<string, unknown>>,
  field: string
): Either.Either<bigint, AdapterInputError> => {
  const raw = intent[field]
  if (raw === undefined || raw === null) return Either.left(invalidField(ctx.protocol, ctx.operation, field, "is required"))
  let value: bigint
  if (typeof raw === "bigint") value = raw
  else if (typeof raw === "number" && Number.isSafeInteger(raw)) value = BigInt(raw)
  else if (typeof raw === "string" && /^\d{1,20}$/.test(raw)) value = BigInt(raw)
  else return Either.left(invalidField(ctx.protocol, ctx.operation, field, "must be an integer (a number or a decimal string)"))
  if (value <= 0n) return Either.left(invalidField(ctx.protocol, ctx.operation, field, "must be greater than 0"))
  if (value > U64_MAX) return Either.left(invalidField(ctx.protocol, ctx.operation, field, "must fit in a u64"))
  return Either.right(value)
}

/** An optional integer within [min, max]; `fallback` when absent. */
export const readIntegerInRange = (
  ctx: FieldContext,
  intent: Readonly<Record<string, unknown>>,
  field: string,
  min: number,
  max: number,
  fallback: number
): Either.Either<number, AdapterInputError> => {
  const raw = intent[field]
  if (raw === undefined || raw === null) return Either.right(fallback)
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < min || raw > max) {
    return Either.left(invalidField(ctx.protocol, ctx.operation, field, `must be an integer between ${min} and ${max}`))
  }
  return Either.right(raw)
}
