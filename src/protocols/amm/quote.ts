/**
 * Quotes over pool views (pure): one pool, or the best route across several pools of a pair for the
 * dex-aggregator, including a split when two pools together pay more than either alone.
 */
import { feeOf, minimumOutFor, priceImpactBps, swapOutput } from "./math.js"
import type { PoolView } from "./poolReads.js"

export interface RouteLeg {
  readonly protocol: string
  readonly programId: string
  readonly pool: string
  readonly inputMint: string
  readonly outputMint: string
  readonly inAmount: bigint
  readonly outAmount: bigint
  readonly feeBps: number
  readonly feeAmount: bigint
  readonly priceImpactBps: number
  readonly view: PoolView
}

export interface Route {
  readonly legs: ReadonlyArray<RouteLeg>
  readonly inAmount: bigint
  readonly outAmount: bigint
  readonly priceImpactBps: number
}

/** One pool's leg for `amount` of `inputMint`. */
export const legOn = (pool: PoolView, inputMint: string, amount: bigint): RouteLeg => {
  const aToB = pool.mintA.address === inputMint
  const [reserveIn, reserveOut] = aToB ? [pool.reserveA, pool.reserveB] : [pool.reserveB, pool.reserveA]
  const outAmount = swapOutput(amount, reserveIn, reserveOut, pool.feeBps)
  return {
    protocol: pool.protocol,
    programId: pool.programId,
    pool: pool.address,
    inputMint,
    outputMint: aToB ? pool.mintB.address : pool.mintA.address,
    inAmount: amount,
    outAmount,
    feeBps: pool.feeBps,
    feeAmount: feeOf(amount, pool.feeBps),
    priceImpactBps: priceImpactBps(amount, outAmount, reserveIn, reserveOut, pool.feeBps),
    view: pool
  }
}

const routeOf = (legs: ReadonlyArray<RouteLeg>): Route => {
  const inAmount = legs.reduce((sum, leg) => sum + leg.inAmount, 0n)
  const outAmount = legs.reduce((sum, leg) => sum + leg.outAmount, 0n)
  // input-weighted impact of the legs
  const weighted = legs.reduce((sum, leg) => sum + BigInt(leg.priceImpactBps) * leg.inAmount, 0n)
  return { legs, inAmount, outAmount, priceImpactBps: inAmount === 0n ? 0 : Number(weighted / inAmount) }
}

/** Split steps tried between two pools: 5% of the amount each. */
const SPLIT_STEPS = 20n

/**
 * The route paying the most output: every single pool, and every 5% split between each two pools.
 * Ties keep the simpler route (fewer legs, then the earlier pool). Null when no pool pays anything.
 */
export const bestRoute = (pools: ReadonlyArray<PoolView>, inputMint: string, amount: bigint): Route | null => {
  let best: Route | null = null
  const consider = (route: Route) => {
    if (route.outAmount <= 0n || route.legs.some((leg) => leg.outAmount <= 0n)) return
    if (best === null || route.outAmount > best.outAmount) best = route
  }
  for (const pool of pools) consider(routeOf([legOn(pool, inputMint, amount)]))
  for (let i = 0; i < pools.length; i++) {
    for (let j = i + 1; j < pools.length; j++) {
      for (let step = 1n; step < SPLIT_STEPS; step++) {
        const first = (amount * step) / SPLIT_STEPS
        if (first <= 0n || first >= amount) continue
        consider(routeOf([legOn(pools[i]!, inputMint, first), legOn(pools[j]!, inputMint, amount - first)]))
      }
    }
  }
  return best
}

/** Each leg's on-chain minimum: its share of the route's minimum (floor), so the legs' minimums sum to at most it. */
export const legMinimums = (route: Route, minimumOut: bigint): ReadonlyArray<bigint> =>
  route.legs.length === 1 ? [minimumOut] : route.legs.map((leg) => (route.outAmount === 0n ? 0n : (minimumOut * leg.outAmount) / route.outAmount))

export { minimumOutFor }
