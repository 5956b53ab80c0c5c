/**
 * Template variables inside an autonomy step's or rule's intent strings (spec: Autonomy configuration):
 * `{{tick}}`, `{{walletId}}`, `{{balanceLamports}}`, `{{knownWallet0}}`, `{{knownWallet1}}`.
 * Pure. Filling is all-or-nothing: an unknown variable, or a known wallet the tick does not have,
 * refuses the whole action (fail closed) instead of sending a half-filled intent.
 */
import { Either } from "effect"

export interface TemplateValues {
  readonly tick: number
  readonly walletId: string
  readonly balanceLamports: bigint
  /** Base58 public keys of the known wallets, in order (see tickContext.ts). */
  readonly knownWalletAddresses: ReadonlyArray<string>
}

export class TemplateError {
  readonly _tag = "TemplateError"
  constructor(readonly message: string) {}
}

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g

const valueOf = (name: string, values: TemplateValues): Either.Either<string, TemplateError> => {
  switch (name) {
    case "tick":
      return Either.right(String(values.tick))
    case "walletId":
      return Either.right(values.walletId)
    case "balanceLamports":
      return Either.right(values.balanceLamports.toString())
    case "knownWallet0":
    case "knownWallet1": {
      const index = Number(name.slice("knownWallet".length))
      const address = values.knownWalletAddresses[index]
      return address === undefined
        ? Either.left(new TemplateError(`template {{${name}}} has no value: the tick knows ${values.knownWalletAddresses.length} wallet(s)`))
        : Either.right(address)
    }
    default:
      return Either.left(new TemplateError(`unknown template variable {{${name}}}`))
  }
}

const fillString = (text: string, values: TemplateValues): Either.Either<string, TemplateError> => {
  let failure: TemplateError | undefined
  const filled = text.replace(PLACEHOLDER, (whole, name: string) => {
    const value = valueOf(name, values)
    if (Either.isLeft(value)) {
      failure ??= value.left
      return whole
    }
    return value.right
  })
  return failure === undefined ? Either.right(filled) : Either.left(failure)
}

const fillValue = (value: unknown, values: TemplateValues): Either.Either<unknown, TemplateError> => {
  if (typeof value === "string") return fillString(value, values)
  if (Array.isArray(value)) {
    const out: Array<unknown> = []
    for (const item of value) {
      const filled = fillValue(item, values)
      if (Either.isLeft(filled)) return filled
      out.push(filled.right)
    }
    return Either.right(out)
  }
  if (value !== null && typeof value === "object") return fillObject(value, values)
  return Either.right(value)
}

const fillObject = (value: object, values: TemplateValues): Either.Either<Record<string, unknown>, TemplateError> => {
  const out: Record<string, unknown> = {}
  for (const [key, item] of Object.entries(value)) {
    const filled = fillValue(item, values)
    if (Either.isLeft(filled)) return Either.left(filled.left)
    out[key] = filled.right
  }
  return Either.right(out)
}

/** The intent with every placeholder in every string (nested objects and arrays too) replaced. */
export const fillTemplates = (
  intent: Readonly<Record<string, unknown>>,
  values: TemplateValues
): Either.Either<Record<string, unknown>, TemplateError> => fillObject(intent, values)
