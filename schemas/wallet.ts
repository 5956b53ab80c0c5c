/** Wallet resource, its token balances, and the wallet endpoints' bodies (spec: Wallet, Wallets). */
import * as Schema from "effect/Schema"
import { Amount, Label, Timestamp, Uuid } from "./common.js"

export const WalletProvider = Schema.Literal("local-dev", "local-memory", "kms", "hsm", "mpc")
export type WalletProvider = typeof WalletProvider.Type

export const KeyBackend = Schema.Literal("encrypted-file", "memory", "kms", "hsm", "mpc")
export type KeyBackend = typeof KeyBackend.Type

export const KeyProvenance = Schema.Struct({
  backend: KeyBackend,
  custody: Schema.Literal("local", "external"),
  deterministicAddressing: Schema.Boolean
})

export const Wallet = Schema.Struct({
  id: Uuid,
  publicKey: Schema.String,
  provider: WalletProvider,
  status: Schema.Literal("active", "disabled"),
  label: Schema.optional(Schema.String),
  createdAt: Timestamp,
  keyProvenance: KeyProvenance
})
export type Wallet = typeof Wallet.Type

/** fundLamports: at most 10,000,000,000 (10 SOL). */
export const MAX_FUND_LAMPORTS = 10_000_000_000n

export const CreateWalletBody = Schema.Struct({
  label: Schema.optional(Label),
  autoFund: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  fundLamports: Schema.optional(
    Amount.pipe(
      Schema.filter((v) => v > 0n && v <= MAX_FUND_LAMPORTS, {
        message: () => "must be between 1 and 10000000000"
      })
    )
  )
})
export type CreateWalletBody = typeof CreateWalletBody.Type

export const WalletListQuery = Schema.Struct({
  publicKey: Schema.optional(Schema.String)
})

export const WalletBalance = Schema.Struct({
  lamports: Schema.Number,
  sol: Schema.Number
})

export const TokenBalance = Schema.Struct({
  mint: Schema.String,
  amount: Schema.String,
  decimals: Schema.Number,
  uiAmount: Schema.Number,
  tokenAccount: Schema.String
})
export type TokenBalance = typeof TokenBalance.Type

/** POST /wallets/<id>/sign: exactly one of `transaction` or `message`, base64. */
export const SignBody = Schema.Struct({
  transaction: Schema.optional(Schema.String.pipe(Schema.minLength(1))),
  message: Schema.optional(Schema.String.pipe(Schema.minLength(1)))
}).pipe(
  Schema.filter((b) => (b.transaction === undefined) !== (b.message === undefined) || "exactly one of transaction or message is required")
)
