/**
 * Lending helpers (spec: Protocols and DeFi helpers; bodies in docs/decisions/lending.md): POST /defi/lend/supply,
 * /defi/lend/borrow, and beyond the spec /defi/lend/withdraw and /defi/lend/repay answer the reserve, the wallet's lending account now, the unsigned transaction the
 * adapter builds and the POST /transactions request that executes it (the only path that signs).
 */
import { Schema } from "effect"
import { Base58Address, LamportsText } from "../common.js"
import { LendBody } from "../protocol.js"
import { endpoint } from "./endpoint.js"

/** The lending operations a helper previews: the spec's supply and borrow, and the way out of them. */
export const LendOperation = Schema.Literal("lend_supply", "lend_borrow", "lend_withdraw", "lend_repay")

const Digits = Schema.String.pipe(Schema.pattern(/^[0-9]+$/))

export const LendingReserve = Schema.Struct({
  programId: Base58Address,
  address: Base58Address,
  mint: Base58Address,
  vault: Base58Address,
  oracle: Base58Address,
  collateralFactorBps: Schema.Number,
  borrowRateBps: Schema.Number,
  flashFeeBps: Schema.Number,
  /** cash the reserve can lend now, base units */
  available: Digits,
  /** borrowed with interest to now, base units */
  borrowed: Digits,
  borrowIndex: Digits
}).annotations({ identifier: "LendingReserve" })

export const LendingAccount = Schema.Struct({
  positions: Schema.Array(
    Schema.Struct({
      type: Schema.Literal("supply", "borrow"),
      mint: Base58Address,
      amount: Digits,
      /** its worth in lamports at the oracle prices (an exact JSON integer on the wire) */
      valueLamports: Schema.optional(LamportsText),
      /** why a worth is absent: the oracle price is older than ORACLE_MAX_PRICE_AGE_SECONDS, or missing */
      valueUnavailable: Schema.optional(Schema.String)
    })
  ),
  /** collateral value x factor / borrowed value; null when nothing is borrowed */
  healthFactor: Schema.NullOr(Schema.String)
})

export const LendPreview = Schema.Struct({
  quote: Schema.Struct({
    protocol: Schema.Literal("lending-market"),
    operation: LendOperation,
    wallet: Base58Address,
    mint: Base58Address,
    amount: Digits,
    reserve: LendingReserve,
    account: LendingAccount,
    note: Schema.String
  }),
  transaction: Schema.Struct({
    unsignedTransaction: Schema.String,
    encoding: Schema.Literal("base64"),
    programIds: Schema.Array(Base58Address),
    instructions: Schema.Number,
    note: Schema.String
  }),
  execute: Schema.Struct({
    method: Schema.Literal("POST"),
    path: Schema.Literal("/api/v1/transactions"),
    body: Schema.Struct({
      walletId: Schema.NullOr(Schema.String),
      type: LendOperation,
      protocol: Schema.Literal("lending-market"),
      intent: Schema.Struct({ mint: Base58Address, amount: Digits })
    })
  })
}).annotations({ identifier: "LendPreview" })

const helper = (path: string, summary: string) => endpoint("defi", "POST", path, { summary, body: LendBody, success: LendPreview })

export const LendingApi = {
  supply: helper("/api/v1/defi/lend/supply", "Preview a lending supply (lend_supply) and the request that executes it"),
  borrow: helper("/api/v1/defi/lend/borrow", "Preview a lending borrow (lend_borrow) and the request that executes it"),
  withdraw: helper("/api/v1/defi/lend/withdraw", "Preview a withdrawal of supplied tokens (lend_withdraw; at most amount, all at or above the supply's worth) and the request that executes it"),
  repay: helper("/api/v1/defi/lend/repay", "Preview a repayment of a borrow (lend_repay; at most the debt with interest) and the request that executes it")
}
