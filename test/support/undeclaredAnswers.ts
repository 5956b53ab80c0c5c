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
