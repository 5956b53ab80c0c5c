import type { AdapterOperation } from "./transactionTypes.js"

/**
 * The intent fields each adapter operation reads at the current adapter version (the
 * spec's payload shapes and our [n3] decisions). Used by the compatibility check; the
 * HTTP layer's schemas do the full decoding.
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

const req = (kind: FieldKind): FieldRequirement => ({ kind })
const opt = (kind: FieldKind): FieldRequirement => ({ kind, optional: true })

const escrowParties: IntentFields = {
  escrowNumericId: req("amount"),
  counterparty: req("address"),
  creator: req("address"),
  arbiter: req("address"),
  feeRecipient: req("address")
}
const byCreator: IntentFields = { escrowNumericId: req("amount"), creator: req("address") }
const swapFields: IntentFields = {
  inputMint: req("address"),
  outputMint: req("address"),
  amount: req("amount"),
  maxSlippageBps: req("bps"),
  minimumOut: opt("amount")
}

export const INTENT_FIELDS: Readonly<Partial<Record<AdapterOperation, IntentFields>>> = {
  transfer_sol: { destination: req("address"), lamports: req("amount") },
  create_account: { lamports: req("amount"), space: req("integer"), owner: req("address") },
  transfer_spl: { destination: req("address"), mint: req("address"), amount: req("amount") },
  x402_pay: {
    url: req("string"), method: opt({ oneOf: ["GET", "POST", "PUT", "PATCH", "DELETE"] }), headers: opt("object"),
    body: opt("string"), maxAmount: req("amount"), asset: opt("address")
  },
  create_mint: { decimals: opt("integer"), freezeAuthority: opt("address") },
  mint_token: { mint: req("address"), amount: req("amount"), destination: opt("address") },
  swap: swapFields,
  quote: swapFields,
  stake: { amount: req("amount"), validator: opt("address") },
  unstake: { amount: req("amount") },
  lend_supply: { mint: req("address"), amount: req("amount") },
  lend_borrow: { mint: req("address"), amount: req("amount") },
  lend_withdraw: { mint: req("address"), amount: req("amount") },
  lend_repay: { mint: req("address"), amount: req("amount") },
  create_escrow: { ...escrowParties, amount: req("amount"), deadlineUnixSec: req("integer"), terms: opt("string"), feeBps: opt("bps") },
  accept_escrow: byCreator,
  refund_escrow: byCreator,
  dispute_escrow: byCreator,
  release_escrow: { ...byCreator, counterparty: req("address"), feeRecipient: req("address") },
  resolve_dispute: { ...byCreator, counterparty: req("address"), decision: req({ oneOf: ["release", "refund"] }) },
  create_milestone_escrow: { ...escrowParties, milestones: req("array"), deadlineUnixSec: req("integer"), terms: opt("string"), feeBps: opt("bps") },
  release_milestone: { ...byCreator, counterparty: req("address"), feeRecipient: req("address"), milestoneIndex: req("integer") },
  nft_mint: { name: req("string"), symbol: req("string"), uri: req("string"), sellerFeeBasisPoints: req("bps"), creators: req("array") },
  cpi_call: { programId: req("address"), accounts: req("array"), data: req("string") },
  custom_instruction_bundle: { instructions: req("array") }
}

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
