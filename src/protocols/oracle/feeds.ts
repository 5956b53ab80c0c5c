/**
 * The Pyth feeds of the mints we price (mainnet feed ids: the same reader works there), and the prices the
 * local ledger seeds (an operator changes them with PUT /api/v1/oracle/prices/<symbol>).
 */
import { KNOWN_MINTS } from "../amm/localPools.js"

export interface FeedInfo {
  readonly symbol: string
  readonly feedId: string
  /** seeded on the local ledger: price * 10^exponent USD */
  readonly seedPrice: bigint
  readonly seedExponent: number
}

export const FEEDS: ReadonlyArray<FeedInfo> = [
  { symbol: "SOL", feedId: "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d", seedPrice: 15_000_000_000n, seedExponent: -8 },
  { symbol: "USDC", feedId: "eaa020c61cc479712813461ce153894a96a6c00b21ed0cfc2798d1f9a9e9c94a", seedPrice: 100_000_000n, seedExponent: -8 },
  { symbol: "BONK", feedId: "72b021217ca3fe68922a19aaf990109cb9d84e9ad004b4d2025ad6f529314419", seedPrice: 2_000n, seedExponent: -8 }
]

export const feedBySymbol = (symbol: string): FeedInfo | undefined => FEEDS.find((f) => f.symbol === symbol)

export const feedOfMint = (mint: string): FeedInfo | undefined => {
  const known = KNOWN_MINTS.find((m) => m.address.toBase58() === mint)
  return known === undefined ? undefined : feedBySymbol(known.symbol)
}
