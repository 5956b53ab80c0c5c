/**
 * A wallet's portfolio value in lamports (pure; docs/decisions/portfolio.md): SOL, plus its token holdings and
 * indexed positions at current prices, minus what it owes.
 *   token holding     amount x tokenPrice / solPrice (Pyth prices); a mint with no feed counts 0 (listed in `unpriced`)
 *   stake position    at the pool's exchange rate (amount x pool lamports / LST supply); its LST in the wallet is not counted twice
 *   supply / borrow   + / - the token's oracle value (wrapped SOL: the amount itself)
 *   other position    the value recorded when it was indexed
 *   escrow            the lamports it still locks
 * A position that cannot be valued (no pool, no feed, no price, a stale price) makes the whole value unavailable: fail closed,
 * since leaving out a borrow would hide a loss. Exposure maps count assets only (what the wallet holds there).
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { type PriceQuote, tokenLamports } from "../protocols/oracle/tokenLamports.js"

export { type PriceQuote, tokenLamports }

/** A feed whose price is too old to use (ORACLE_MAX_PRICE_AGE_SECONDS): why, naming the feed and its age. */
export interface StaleQuote {
  readonly stale: string
}

export interface HeldToken {
  readonly mint: string
  readonly amount: bigint
  readonly decimals: number
}

export interface IndexedPosition {
  readonly protocol: string
  readonly positionType: string
  readonly token: string
  readonly amount: bigint
  readonly valueLamports: bigint
}

export interface LockedEscrow {
  readonly protocol: string
  readonly lockedLamports: bigint
}

export interface StakePoolRate {
  readonly lstMint: string
  readonly totalLamports: bigint
  readonly lstSupply: bigint
}

/** What the chain and the oracle said, gathered by PortfolioValuation. */
export interface ValuationInputs {
  readonly solLamports: bigint
  readonly tokens: ReadonlyArray<HeldToken>
  readonly positions: ReadonlyArray<IndexedPosition>
  readonly escrows: ReadonlyArray<LockedEscrow>
  /** per mint: a quote; null when its feed has no valid price; stale when too old; absent when the mint has no feed */
  readonly prices: ReadonlyMap<string, PriceQuote | StaleQuote | null>
  /** decimals of the mints positions name (token holdings carry their own) */
  readonly decimals: ReadonlyMap<string, number>
  /** null when the pool could not be read */
  readonly pool: StakePoolRate | null
}

export interface PortfolioValue {
  readonly totalLamports: bigint
  /** assets held in each protocol (stake, supply, escrow), lamports */
  readonly byProtocol: ReadonlyMap<string, bigint>
  /** assets held of each token mint (holdings and positions), lamports */
  readonly byMint: ReadonlyMap<string, bigint>
  /** the wallet's priced token holdings: amount (base units) and lamports */
  readonly holdings: ReadonlyMap<string, { readonly amount: bigint; readonly lamports: bigint }>
  /** mints held with no oracle feed, counted 0 */
  readonly unpriced: ReadonlyArray<string>
}

export type PortfolioValuationResult =
  | { readonly ok: true; readonly value: PortfolioValue }
  | { readonly ok: false; readonly reason: string }

export const STAKE_POSITION = "stake"
export const SUPPLY_POSITION = "supply"
export const BORROW_POSITION = "borrow"

const SOL_MINT = NATIVE_MINT.toBase58()

class Unvaluable {
  constructor(readonly reason: string) {}
}

export const valuePortfolio = (inputs: ValuationInputs): PortfolioValuationResult => {
  const byProtocol = new Map<string, bigint>()
  const byMint = new Map<string, bigint>()
  const holdings = new Map<string, { amount: bigint; lamports: bigint }>()
  const unpriced: Array<string> = []
  const add = (map: Map<string, bigint>, key: string, lamports: bigint) => map.set(key, (map.get(key) ?? 0n) + lamports)
  const quote = (mint: string, what: string): PriceQuote | undefined => {
    const price = inputs.prices.get(mint)
    if (price === undefined) return undefined
    if (price !== null && "stale" in price) throw new Unvaluable(`${price.stale}: cannot value ${what} ${mint}`)
    if (price === null || price.price <= 0n) throw new Unvaluable(`no valid oracle price for ${what} ${mint}`)
    return price
  }
  const solQuote = (what: string): PriceQuote => {
    const sol = inputs.prices.get(SOL_MINT)
    if (sol !== undefined && sol !== null && "stale" in sol) throw new Unvaluable(`${sol.stale}: cannot value ${what}`)
    if (sol === undefined || sol === null || sol.price <= 0n) throw new Unvaluable(`no valid oracle price for SOL, needed to value ${what}`)
    return sol
  }
  /** lamports of `amount` of `mint`; undefined when the mint has no feed */
  const lamportsOf = (mint: string, amount: bigint, decimals: number | undefined, what: string): bigint | undefined => {
    if (mint === SOL_MINT) return amount
    const price = quote(mint, what)
    if (price === undefined) return undefined
    if (decimals === undefined) throw new Unvaluable(`the decimals of ${what} ${mint} could not be read`)
    return tokenLamports(amount, decimals, price, solQuote(`${what} ${mint}`))
  }
  try {
    let total = inputs.solLamports
    // a stake position is the LST the wallet holds: its token account is valued as the position
    const stakeTokens = new Set(inputs.positions.filter((p) => p.positionType === STAKE_POSITION).map((p) => p.token))
    for (const token of inputs.tokens) {
      if (token.amount === 0n || stakeTokens.has(token.mint)) continue
      const lamports = lamportsOf(token.mint, token.amount, token.decimals, "token")
      if (lamports === undefined) {
        unpriced.push(token.mint)
        continue
      }
      total += lamports
      add(byMint, token.mint, lamports)
      const held = holdings.get(token.mint)
      holdings.set(token.mint, { amount: (held?.amount ?? 0n) + token.amount, lamports: (held?.lamports ?? 0n) + lamports })
    }
    for (const position of inputs.positions) {
      const what = `${position.protocol} ${position.positionType} position of`
      let lamports: bigint
      switch (position.positionType) {
        case STAKE_POSITION: {
          const pool = inputs.pool
          if (pool === null || pool.lstMint !== position.token || pool.lstSupply <= 0n) throw new Unvaluable(`the stake pool of ${what} ${position.token} could not be read`)
          lamports = (position.amount * pool.totalLamports) / pool.lstSupply
          break
        }
        case SUPPLY_POSITION:
        case BORROW_POSITION: {
          const worth = lamportsOf(position.token, position.amount, inputs.decimals.get(position.token), what)
          if (worth === undefined) throw new Unvaluable(`no oracle feed for ${what} ${position.token}`)
          lamports = worth
          break
        }
        default:
          lamports = position.valueLamports
      }
      if (position.positionType === BORROW_POSITION) {
        total -= lamports
        continue
      }
      total += lamports
      add(byProtocol, position.protocol, lamports)
      add(byMint, position.token, lamports)
    }
    for (const escrow of inputs.escrows) {
      total += escrow.lockedLamports
      add(byProtocol, escrow.protocol, escrow.lockedLamports)
    }
    return { ok: true, value: { totalLamports: total, byProtocol, byMint, holdings, unpriced } }
  } catch (error) {
    if (error instanceof Unvaluable) return { ok: false, reason: error.reason }
    throw error
  }
}
