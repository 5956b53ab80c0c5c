/**
 * Escrow-specific intent fields, read out of a decoded intent (schemas/intent.ts shapes); every
 * failure is an AdapterInputError naming the field.
 */
import { createHash } from "node:crypto"
import { Either } from "effect"
import { type AdapterInputError, invalidField } from "../adapterError.js"
import { type FieldContext, readPositiveU64, U64_MAX } from "../intentValues.js"
import { MAX_MILESTONES } from "./layout.js"

type Intent = Readonly<Record<string, unknown>>

/** escrowNumericId: a u64 decimal string (a JSON integer is accepted while safe). */
export const readEscrowId = (ctx: FieldContext, intent: Intent): Either.Either<bigint, AdapterInputError> => {
  const raw = intent.escrowNumericId
  const text = typeof raw === "number" && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : raw
  if (typeof text !== "string" || !/^(0|[1-9][0-9]{0,19})$/.test(text) || BigInt(text) > U64_MAX) {
    return Either.left(invalidField(ctx.protocol, ctx.operation, "escrowNumericId", "must be a u64 decimal string"))
  }
  return Either.right(BigInt(text))
}

export const readDeadline = (ctx: FieldContext, intent: Intent, nowUnixSec: bigint): Either.Either<bigint, AdapterInputError> => {
  const raw = intent.deadlineUnixSec
  if (typeof raw !== "number" || !Number.isSafeInteger(raw) || raw <= 0) {
    return Either.left(invalidField(ctx.protocol, ctx.operation, "deadlineUnixSec", "must be a positive unix time in seconds"))
  }
  // [n3] the schema cannot know the time; the program checks again against the ledger clock.
  if (BigInt(raw) <= nowUnixSec) {
    return Either.left(invalidField(ctx.protocol, ctx.operation, "deadlineUnixSec", `must be in the future (now ${nowUnixSec})`))
  }
  return Either.right(BigInt(raw))
}

/** SHA-256 of the terms text; 32 zero bytes when there are none (programs/escrow/README.md). */
export const readTermsHash = (ctx: FieldContext, intent: Intent): Either.Either<Uint8Array, AdapterInputError> => {
  const raw = intent.terms
  if (raw === undefined || raw === null) return Either.right(new Uint8Array(32))
  if (typeof raw !== "string") return Either.left(invalidField(ctx.protocol, ctx.operation, "terms", "must be a string"))
  return Either.right(new Uint8Array(createHash("sha256").update(raw, "utf8").digest()))
}

export const readMilestones = (ctx: FieldContext, intent: Intent): Either.Either<bigint[], AdapterInputError> =>
  Either.gen(function* () {
    const raw = intent.milestones
    if (!Array.isArray(raw) || raw.length < 1 || raw.length > MAX_MILESTONES) {
      return yield* Either.left(invalidField(ctx.protocol, ctx.operation, "milestones", `must hold 1-${MAX_MILESTONES} milestones`))
    }
    const amounts: bigint[] = []
    for (const [index, milestone] of raw.entries()) {
      const item: Intent = typeof milestone === "object" && milestone !== null ? (milestone as Intent) : {}
      const amount = yield* readPositiveU64(ctx, item, "amount").pipe(
        Either.mapLeft(() => invalidField(ctx.protocol, ctx.operation, `milestones[${index}].amount`, "must be a positive u64 amount"))
      )
      amounts.push(amount)
    }
    return amounts
  })

export const readMilestoneIndex = (ctx: FieldContext, intent: Intent): Either.Either<number, AdapterInputError> => {
  const raw = intent.milestoneIndex
  return typeof raw === "number" && Number.isInteger(raw) && raw >= 0 && raw < MAX_MILESTONES
    ? Either.right(raw)
    : Either.left(invalidField(ctx.protocol, ctx.operation, "milestoneIndex", `must be an integer between 0 and ${MAX_MILESTONES - 1}`))
}

export const readDecision = (ctx: FieldContext, intent: Intent): Either.Either<"release" | "refund", AdapterInputError> => {
  const raw = intent.decision
  return raw === "release" || raw === "refund"
    ? Either.right(raw)
    : Either.left(invalidField(ctx.protocol, ctx.operation, "decision", "must be one of: release, refund"))
}
