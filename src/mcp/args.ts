/**
 * Argument types shared by the tools. They check shape only (the gateway checks meaning) and never
 * transform: what a tool decodes is what it forwards.
 */
import { Schema } from "effect"
import { Base58Address, IdempotencyKey, Uuid } from "../../schemas/common.js"
import { TransactionType } from "../../schemas/intent.js"

export { Base58Address, TransactionType, Uuid }

export const WalletId = Uuid.annotations({ description: "wallet id (UUID)" })
export const TxId = Uuid.annotations({ description: "transaction id (UUID)" })
export const AgentId = Uuid.annotations({ description: "agent id (UUID)" })
export const PolicyId = Uuid.annotations({ description: "policy id (UUID)" })
export const ProtocolName = Schema.String.pipe(Schema.pattern(/^[a-z0-9-]{1,64}$/, { message: () => "must be a protocol id such as system-program" })).annotations({
  description: "protocol id: system-program, spl-token, escrow, dex-aggregator, amm-one, amm-two, liquid-staking, lending-market, nft-program"
})

/** Lamports or token base units: a non-negative integer or a decimal string. */
export const Amount = Schema.Union(
  Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.nonNegative({ message: () => "must not be negative" })),
  Schema.String.pipe(Schema.pattern(/^(0|[1-9][0-9]{0,29})$/, { message: () => "must be a non-negative integer string" }))
).annotations({ description: "amount in base units (integer or decimal string)" })

export const Intent = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  description: "the type-specific intent payload (e.g. transfer_sol: {destination, lamports})"
})
export const IdempotencyKeyArg = IdempotencyKey.annotations({
  description: "one per intended payment, move or create (1-128 characters); a repeat with it answers what the first did (the transaction, wallet, policy or agent it made), nothing is done twice"
})
export const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown })
export const Rules = Schema.Array(JsonObject).annotations({ description: "policy rules, e.g. [{type: 'spending_limit', maxLamportsPerTx: 1000000}]" })

export const Limit = Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.between(1, 100, { message: () => "must be between 1 and 100" }))
export const Offset = Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.nonNegative({ message: () => "must not be negative" }))
export const Base64 = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.pattern(/^[A-Za-z0-9+/]*={0,2}$/, { message: () => "must be base64" })
)
