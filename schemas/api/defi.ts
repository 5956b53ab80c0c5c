/**
 * DeFi helper endpoints (spec: Protocols and DeFi helpers; docs/decisions/swaps.md, staking.md): pools,
 * quote and swap preview, oracle prices, stake and unstake previews, the local ledger's reward crank.
 * The lending helpers (/defi/lend/*) are declared in lending.ts. Token amounts are decimal strings;
 * fields named for lamports are exact JSON integers, as everywhere.
 */
import * as Schema from "effect/Schema"
import { Base58Address, BaseUnitsText, BasisPoints, LamportsText, Timestamp, Uuid } from "../common.js"
import { ProtocolId, QuoteBody, StakeBody, StakeProtocol, SwapProtocol, UnstakeBody } from "../protocol.js"
import { type AnySchema, endpoint } from "./endpoint.js"

/** Body of `POST /defi/stake/rewards`: lamports the local ledger adds to the stake pool. */
export const StakeRewardsBody = Schema.Struct({
  lamports: Schema.String.pipe(Schema.pattern(/^[1-9][0-9]{0,17}$/, { message: () => "must be a positive integer string of lamports" }))
})

/** Body of `PUT /defi/oracle/prices/<symbol>`: price = price * 10^exponent USD. */
export const SetOraclePriceBody = Schema.Struct({
  price: Schema.String.pipe(Schema.pattern(/^[1-9][0-9]{0,17}$/, { message: () => "must be a positive integer string (price = price * 10^exponent USD)" })),
  exponent: Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.between(-18, 0, { message: () => "must be between -18 and 0" })),
  /** Post as published at this time and stall the feed there (the local ledger stops refreshing it): how to try a stale price. */
  publishTime: Schema.optional(
    Schema.String.pipe(Schema.filter((text) => /^\d{4}-\d{2}-\d{2}T/.test(text) && Number.isFinite(Date.parse(text)) && Date.parse(text) >= 0, {
      message: () => "must be an ISO 8601 timestamp (UTC, not before 1970)"
    }))
  )
})

export const OracleSymbolParams = Schema.Struct({ symbol: Schema.String })

/** A Pyth price or confidence, i64 as a decimal string. */
const PriceText = Schema.String.pipe(Schema.pattern(/^-?(0|[1-9][0-9]*)$/))

/** A pool's mint: its address, decimals and the symbol of a known mint. */
const PoolMint = Schema.Struct({ address: Base58Address, decimals: Schema.Int, symbol: Schema.NullOr(Schema.String) })

export const AmmPool = Schema.Struct({
  protocol: ProtocolId,
  programId: Base58Address,
  address: Base58Address,
  feeBps: BasisPoints,
  mintA: PoolMint,
  mintB: PoolMint,
  reserveA: BaseUnitsText,
  reserveB: BaseUnitsText,
  vaultA: Base58Address,
  vaultB: Base58Address,
  lpMint: Base58Address,
  lpSupply: BaseUnitsText
}).annotations({ identifier: "AmmPool" })

export const PoolList = Schema.Struct({
  pools: Schema.Array(AmmPool),
  /** Each AMM deployment read: not ok when its program is not configured or not deployed. */
  sources: Schema.Array(Schema.Struct({ protocol: ProtocolId, ok: Schema.Boolean, message: Schema.optional(Schema.String) }))
})

const RouteLeg = Schema.Struct({
  protocol: ProtocolId,
  programId: Base58Address,
  pool: Base58Address,
  inputMint: Base58Address,
  outputMint: Base58Address,
  inAmount: BaseUnitsText,
  outAmount: BaseUnitsText,
  feeBps: BasisPoints,
  feeAmount: BaseUnitsText,
  priceImpactBps: Schema.Number
})

/** The oracle's price against the quote's (null when either mint has no valid price update). */
const OracleComparison = Schema.Struct({
  oraclePrice: Schema.String,
  quotePrice: Schema.String,
  deviationBps: Schema.Number,
  inputPriceAccount: Base58Address,
  outputPriceAccount: Base58Address
})

export const SwapQuote = Schema.Struct({
  protocol: SwapProtocol,
  wallet: Base58Address,
  inputMint: Base58Address,
  outputMint: Base58Address,
  inAmount: BaseUnitsText,
  outAmount: BaseUnitsText,
  minimumOut: BaseUnitsText,
  slippageBps: BasisPoints,
  priceImpactBps: Schema.Number,
  fees: Schema.Array(Schema.Struct({ protocol: ProtocolId, pool: Base58Address, mint: Base58Address, amount: BaseUnitsText, bps: BasisPoints })),
  route: Schema.Array(RouteLeg),
  pools: Schema.Array(AmmPool),
  oracle: Schema.NullOr(OracleComparison),
  /** why `oracle` is null although both mints have a feed: a price older than ORACLE_MAX_PRICE_AGE_SECONDS is never compared */
  oracleUnavailable: Schema.optional(Schema.String),
  quotedAt: Timestamp
}).annotations({ identifier: "SwapQuote" })

/** The unsigned transaction a helper would build: a preview; only POST /transactions signs. */
const TransactionPreview = Schema.Struct({
  unsignedTransaction: Schema.String,
  encoding: Schema.Literal("base64"),
  programIds: Schema.Array(Base58Address),
  instructions: Schema.Int,
  note: Schema.String
}).annotations({ identifier: "TransactionPreview" })

/** The POST /transactions request that executes the preview (walletId null when the key cannot see the wallet). */
const ExecuteRequest = <T extends string, P extends AnySchema, I extends AnySchema>(type: T, protocol: P, intent: I) =>
  Schema.Struct({
    method: Schema.Literal("POST"),
    path: Schema.Literal("/api/v1/transactions"),
    body: Schema.Struct({ walletId: Schema.NullOr(Uuid), type: Schema.Literal(type), protocol, intent })
  })

export const SwapPreview = Schema.Struct({
  quote: SwapQuote,
  transaction: TransactionPreview,
  execute: ExecuteRequest(
    "swap",
    SwapProtocol,
    Schema.Struct({ inputMint: Base58Address, outputMint: Base58Address, amount: BaseUnitsText, slippageBps: BasisPoints, minimumOut: BaseUnitsText })
  )
})

export const StakePool = Schema.Struct({
  programId: Base58Address,
  address: Base58Address,
  lstMint: Base58Address,
  totalLamports: LamportsText,
  lstSupply: BaseUnitsText,
  /** The exchange rate, lamports per LST (integer division). */
  lamportsPerLst: BaseUnitsText,
  unstakeFeeBps: BasisPoints
}).annotations({ identifier: "StakePool" })

export const StakePreview = Schema.Struct({
  quote: Schema.Struct({
    protocol: StakeProtocol,
    wallet: Base58Address,
    amountLamports: LamportsText,
    lstAmount: BaseUnitsText,
    minimumLst: Schema.optional(BaseUnitsText),
    pool: StakePool
  }),
  transaction: TransactionPreview,
  execute: ExecuteRequest("stake", Schema.Literal("liquid-staking"), Schema.Struct({ amount: BaseUnitsText, validator: Schema.optional(Base58Address) }))
})

export const UnstakePreview = Schema.Struct({
  quote: Schema.Struct({
    protocol: StakeProtocol,
    wallet: Base58Address,
    lstAmount: BaseUnitsText,
    grossLamports: LamportsText,
    feeLamports: LamportsText,
    lamports: LamportsText,
    minimumLamports: Schema.optional(LamportsText),
    pool: StakePool
  }),
  transaction: TransactionPreview,
  execute: ExecuteRequest("unstake", Schema.Literal("liquid-staking"), Schema.Struct({ amount: BaseUnitsText }))
})

export const OraclePrice = Schema.Struct({
  symbol: Schema.String,
  mint: Base58Address,
  feedId: Schema.String,
  /** null (with price null) when the feed has no price update on this ledger. */
  account: Schema.NullOr(Base58Address),
  price: Schema.NullOr(PriceText),
  exponent: Schema.optional(Schema.Int),
  conf: Schema.optional(PriceText),
  publishTime: Schema.optional(Timestamp),
  /** seconds since publishTime by the chain's clock (Clock sysvar); absent when that clock could not be read */
  ageSeconds: Schema.optional(Schema.Int),
  /** older than ORACLE_MAX_PRICE_AGE_SECONDS (or not ageable): the service uses no such price */
  stale: Schema.optional(Schema.Boolean)
}).annotations({ identifier: "OraclePrice" })

export const DefiApi = {
  pools: endpoint("defi", "GET", "/api/v1/defi/pools", { summary: "Every pool of both AMM deployments, live from the chain", success: PoolList }),
  quote: endpoint("defi", "POST", "/api/v1/defi/quote", { summary: "Route an amount over live pools (no stale quote)", body: QuoteBody, success: SwapQuote }),
  swap: endpoint("defi", "POST", "/api/v1/defi/swap", {
    summary: "The quote, the unsigned swap it would build and the POST /transactions request that executes it",
    body: QuoteBody,
    success: SwapPreview
  }),
  oraclePrices: endpoint("defi", "GET", "/api/v1/defi/oracle/prices", {
    summary: "Every known feed's price, read from its PriceUpdateV2 account",
    success: Schema.Struct({ prices: Schema.Array(OraclePrice), maxPriceAgeSeconds: Schema.optional(Schema.Int) })
  }),
  setOraclePrice: endpoint("defi", "PUT", "/api/v1/defi/oracle/prices/:symbol", {
    summary: "Post a price on the local ledger (a real cluster's prices come from Pyth; there this fails)",
    params: OracleSymbolParams,
    body: SetOraclePriceBody,
    success: Schema.Struct({
      symbol: Schema.String, feedId: Schema.String, account: Base58Address, price: PriceText, exponent: Schema.Int, publishTime: Schema.optional(Timestamp)
    })
  }),
  stake: endpoint("defi", "POST", "/api/v1/defi/stake", {
    summary: "Stake preview: the pool's rate, what the amount gets, the unsigned transaction and the execute request",
    body: StakeBody,
    success: StakePreview
  }),
  unstake: endpoint("defi", "POST", "/api/v1/defi/unstake", {
    summary: "Unstake preview: the lamports the LST amount returns after the fee, the unsigned transaction and the execute request",
    body: UnstakeBody,
    success: UnstakePreview
  }),
  stakeRewards: endpoint("defi", "POST", "/api/v1/defi/stake/rewards", {
    summary: "Add rewards to the stake pool (the local ledger's operator crank)",
    body: StakeRewardsBody,
    success: Schema.Struct({ rewardLamports: LamportsText, pool: StakePool })
  })
}
