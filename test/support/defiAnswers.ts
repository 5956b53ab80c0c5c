/**
 * The answers of the `/api/v1/defi/*` routes as the tests read them. Those routes are not declared in
 * schemas/api/ yet (docs/decisions/api-contract.md), so the typed client has no group for them: tests
 * name the answer with `api<DefiPreview>(...)` instead of reading `any`. Once the routes are declared,
 * these give way to the client's decoded types.
 */

/** A quote, the unsigned transaction it builds, and the request that executes it through the pipeline. */
export interface DefiPreview<Quote = Record<string, unknown>> {
  readonly quote: Quote
  readonly transaction: { readonly unsignedTransaction: string; readonly programIds: ReadonlyArray<string> }
  readonly execute: { readonly method: string; readonly path: string; readonly body: Record<string, unknown> }
  readonly oracle?: { readonly oraclePrice: string; readonly deviationBps: number }
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
