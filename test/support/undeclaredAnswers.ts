/**
 * Answers of routes whose success schema is not declared in schemas/api/ yet (the `/api/v1/defi/*`
 * routes, a wallet's sign; docs/decisions/api-contract.md), as the tests read them: the typed client has
 * no decoder for them, so tests name the answer with `api<DefiPreview>(...)` instead of reading `any`.
 * Once a route is declared, its type here gives way to the client's decoded one.
 */

/** POST /wallets/<id>/sign: the signature, the signed bytes, and the record's id. */
export interface SignAnswer {
  readonly txId: string
  readonly publicKey: string
  readonly signature: string
  readonly signedTransaction?: string
  readonly signedMessage?: string
  readonly result?: unknown
}

/** A quote, the unsigned transaction it builds, and the request that executes it through the pipeline. */
export interface DefiPreview<Quote = Record<string, unknown>> {
  readonly quote: Quote
  readonly transaction: { readonly unsignedTransaction: string; readonly programIds: ReadonlyArray<string> }
  readonly execute: { readonly method: string; readonly path: string; readonly body: Record<string, unknown> }
}

/** A liquid-staking stake quote: the LST the pool's exchange rate gives. */
export interface StakeQuote {
  readonly amountLamports: number
  readonly lstAmount: string
}

/** The operator's reward crank: the pool after it. */
export interface RewardsCrank {
  readonly pool: { readonly lamportsPerLst: string }
}

/** GET /defi/oracle/prices. */
export interface OraclePrices {
  readonly prices: ReadonlyArray<{
    readonly symbol: string
    readonly mint: string
    readonly account: string
    readonly feedId: string
    readonly price: string
    readonly exponent: number
  }>
}

/** POST /defi/quote: what the route pays, leg by leg, and the oracle's view when configured. */
export interface SwapQuote {
  readonly inAmount: string
  readonly outAmount: string
  readonly slippageBps: number
  readonly minimumOut: string
  readonly quotedAt: string
  readonly route: ReadonlyArray<{
    readonly protocol: string
    readonly pool: string
    readonly inAmount: string
    readonly outAmount: string
    readonly feeBps: number
    readonly feeAmount: string
  }>
  readonly oracle?: { readonly oraclePrice: string; readonly deviationBps: number }
}

interface PoolMint {
  readonly address: string
  readonly symbol: string
  readonly decimals: number
}

/** GET /defi/pools: every seeded pool, and whether each AMM source answered. */
export interface DefiPools {
  readonly sources: ReadonlyArray<{ readonly protocol: string; readonly ok: boolean; readonly message?: string }>
  readonly pools: ReadonlyArray<{
    readonly protocol: string
    readonly address: string
    readonly mintA: PoolMint
    readonly mintB: PoolMint
    readonly reserveA: string
    readonly reserveB: string
    readonly feeBps: number
  }>
}

/** GET /wallets/<id>/escrows: the escrows a wallet is a party to, as the tests read them. */
export interface WalletEscrow {
  readonly escrowId: string
  readonly state: string
  readonly status: string
  readonly resolution?: string
  readonly [field: string]: unknown
}
