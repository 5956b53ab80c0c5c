/** Wallet resource, its token balances, and the wallet endpoints' bodies (spec: Wallet, Wallets). */
import * as Schema from "effect/Schema"
import { Amount, IdempotencyKey, Label, Timestamp, Uuid } from "./common.js"

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

/**
 * fundLamports is "used when autoFund is true": without autoFund any value in range (0 included) is
 * accepted and ignored; with autoFund it must fund something (1 or more).
 */
export const CreateWalletBody = Schema.Struct({
  label: Schema.optional(Label),
  autoFund: Schema.optionalWith(Schema.Boolean, { default: () => false }),
  fundLamports: Schema.optional(
    Amount.pipe(
      Schema.filter((v) => v <= MAX_FUND_LAMPORTS, {
        message: () => "must be between 0 and 10000000000 (at least 1 when autoFund is true)"
      })
    )
  ),
  /** A create sent again with the same key (after a lost answer) answers the wallet it made, not a second one. */
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
}).pipe(
  Schema.filter((body) =>
    !body.autoFund || body.fundLamports === undefined || body.fundLamports > 0n
      ? true
      : { path: ["fundLamports"], message: "must be at least 1 when autoFund is true" }
  )
)
export type CreateWalletBody = typeof CreateWalletBody.Type

export const WalletListQuery = Schema.Struct({
  publicKey: Schema.optional(Schema.String)
})

export const WalletBalance = Schema.Struct({
  lamports: Amount,
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

const SignPayload = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must not be empty" }),
  Schema.maxLength(87_384, { message: () => "must decode to at most 65535 bytes" }),
  Schema.pattern(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, { message: () => "must be base64" })
)

/**
 * POST /wallets/<id>/sign: exactly one of `transaction` (a serialized transaction) or `message` (UTF-8 text),
 * base64; `idempotencyKey` (per wallet, as a create's): a repeat answers the first signing, counted once.
 */
export const SignBody = Schema.Struct({
  transaction: Schema.optionalWith(SignPayload, { exact: true }),
  message: Schema.optionalWith(SignPayload, { exact: true }),
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
})
export type SignBody = typeof SignBody.Type
