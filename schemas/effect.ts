/**
 * The whole effect of a transaction on what a wallet owns or controls (issue 31), as the service
 * reads it from the simulation (accounts before and after) and from decoding every instruction,
 * inner ones included. Policy judges it on every signing path; a transaction's `simulation.effect`
 * records it (so its proof covers it, and an approval can show it). Amounts are bigint inside; on the
 * wire lamports are integers and token base units decimal strings, as everywhere in the API.
 */
import * as Schema from "effect/Schema"
import { Amount, AmountString } from "./common.js"

/**
 * What changed hands on an account the wallet controlled: its owner program (System Assign), its data
 * (System Allocate of the wallet), a token account's owner, delegate or close authority, a mint's mint or
 * freeze authority, a durable nonce's authority.
 */
export const ControlKind = Schema.Literal(
  "owner_program",
  "account_data",
  "token_owner",
  "delegate",
  "close_authority",
  "mint_authority",
  "freeze_authority",
  "nonce_authority"
)
export type ControlKind = typeof ControlKind.Type

/** Where an effect comes from: a top-level instruction, and the inner (CPI) instruction inside it if any. */
export const InstructionRef = Schema.Struct({
  index: Schema.Number,
  inner: Schema.optional(Schema.Number)
})
export type InstructionRef = typeof InstructionRef.Type

export const ControlChange = Schema.Struct({
  account: Schema.String,
  kind: ControlKind,
  /** who held it before (for owner_program: the program; for account_data: the data length) */
  from: Schema.NullOr(Schema.String),
  /** who holds it after; null = nobody (revoked, removed) */
  to: Schema.NullOr(Schema.String),
  /** the instruction that made the change, when decoding names one */
  instruction: Schema.optional(InstructionRef)
})
export type ControlChange = typeof ControlChange.Type

export const ClosedAccount = Schema.Struct({
  account: Schema.String,
  lamports: Amount,
  /** where its lamports went, when decoding names it */
  destination: Schema.NullOr(Schema.String),
  instruction: Schema.optional(InstructionRef)
})
export type ClosedAccount = typeof ClosedAccount.Type

/** A token account of the wallet (owned by it before or after) and its balance before and after. */
export const TokenBalanceChange = Schema.Struct({
  account: Schema.String,
  mint: Schema.String,
  before: AmountString,
  after: AmountString
})
export type TokenBalanceChange = typeof TokenBalanceChange.Type

export const MintAmount = Schema.Struct({ mint: Schema.String, amount: AmountString })
export type MintAmount = typeof MintAmount.Type

/** An address outside the wallet that gains value (a token account counts for its owner). */
export const ValueRecipient = Schema.Struct({
  address: Schema.String,
  lamports: Amount,
  tokens: Schema.Array(MintAmount)
})
export type ValueRecipient = typeof ValueRecipient.Type

/** A durable-nonce transaction: its first instruction advances `account`, controlled by `authority`. */
export const DurableNonceUse = Schema.Struct({
  account: Schema.String,
  /** the nonce's authority as stored on the account (else as the instruction names it) */
  authority: Schema.String
})
export type DurableNonceUse = typeof DurableNonceUse.Type

/** One instruction as the service reads it: program, action, and whether its effect is understood. */
export const EffectInstruction = Schema.Struct({
  index: Schema.Number,
  inner: Schema.optional(Schema.Number),
  programId: Schema.String,
  /** the program's name ("System Program", "Token Program", "amm-one", ...) or "unknown program" */
  program: Schema.String,
  /** "transfer", "approve", "swap", ..., or "unknown instruction <tag>" */
  action: Schema.String,
  explained: Schema.Boolean
})
export type EffectInstruction = typeof EffectInstruction.Type

export const TransactionEffect = Schema.Struct({
  /** whose effect this is: the wallet (or, for the gasless relay, its fee payer) */
  wallet: Schema.String,
  feePayer: Schema.String,
  /** the fee the fee payer pays (signatures and priority fee) */
  feeLamports: Amount,
  /** the wallet's own account */
  sol: Schema.Struct({ beforeLamports: Amount, afterLamports: Amount }),
  /** SOL that leaves the wallet's own account and the nonce accounts it controls (net): the fee when it pays it, included */
  solOutflowLamports: Amount,
  tokenChanges: Schema.Array(TokenBalanceChange),
  /** per mint, the tokens that leave the wallet's token accounts */
  tokenOutflows: Schema.Array(MintAmount),
  recipients: Schema.Array(ValueRecipient),
  controlChanges: Schema.Array(ControlChange),
  closedAccounts: Schema.Array(ClosedAccount),
  durableNonce: Schema.optional(DurableNonceUse),
  /** every program the transaction invokes, top level and by CPI */
  programs: Schema.Array(Schema.String),
  instructions: Schema.Array(EffectInstruction)
}).annotations({ identifier: "TransactionEffect" })
export type TransactionEffect = typeof TransactionEffect.Type
export type TransactionEffectEncoded = typeof TransactionEffect.Encoded
