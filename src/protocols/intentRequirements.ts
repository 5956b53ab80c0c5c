/**
 * How the compatibility check describes the intent fields an operation reads at the current adapter
 * version (the spec's payload shapes and our [n3] decisions; each type's list is in its facts, typeFacts.ts).
 * The HTTP layer's schemas do the full decoding.
 */

export type FieldKind =
  | "address"
  | "amount" // positive integer, JSON number or decimal string
  | "integer"
  | "bps" // integer 0-10000
  | "string"
  | "boolean"
  | "array"
  | "object"
  | { readonly oneOf: ReadonlyArray<string> }

export interface FieldRequirement {
  readonly kind: FieldKind
  readonly optional?: boolean
}

export type IntentFields = Readonly<Record<string, FieldRequirement>>

export const req = (kind: FieldKind): FieldRequirement => ({ kind })
export const opt = (kind: FieldKind): FieldRequirement => ({ kind, optional: true })

const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/

/** Null when the value fits the kind, else what it must be. */
export const kindProblem = (kind: FieldKind, value: unknown): string | null => {
  if (typeof kind === "object") return kind.oneOf.includes(String(value)) && typeof value === "string" ? null : `must be one of: ${kind.oneOf.join(", ")}`
  switch (kind) {
    case "address":
      return typeof value === "string" && BASE58_ADDRESS.test(value) ? null : "must be a base58 address"
    case "amount":
      return (typeof value === "number" && Number.isSafeInteger(value) && value >= 0) ||
        (typeof value === "string" && /^\d{1,20}$/.test(value))
        ? null
        : "must be a non-negative integer (number or decimal string)"
    case "integer":
      return typeof value === "number" && Number.isSafeInteger(value) ? null : "must be an integer"
    case "bps":
      return typeof value === "number" && Number.isInteger(value) && value >= 0 && value <= 10_000 ? null : "must be an integer 0-10000"
    case "string":
      return typeof value === "string" ? null : "must be a string"
    case "boolean":
      return typeof value === "boolean" ? null : "must be a boolean"
    case "array":
      return Array.isArray(value) ? null : "must be an array"
    case "object":
      return typeof value === "object" && value !== null && !Array.isArray(value) ? null : "must be an object"
  }
}
