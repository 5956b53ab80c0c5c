/** The AMM program's arithmetic (programs/amm/math.c), exactly, in bigint: quotes equal what the chain does. */

export const BPS = 10_000n

export const feeOf = (amount: bigint, feeBps: number): bigint => (amount * BigInt(feeBps)) / BPS

/** Output of an exact-input swap against reserves, after the pool's fee; 0n for an empty pool. */
export const swapOutput = (amountIn: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: number): bigint => {
  if (amountIn <= 0n || reserveIn <= 0n || reserveOut <= 0n) return 0n
  const net = amountIn - feeOf(amountIn, feeBps)
  return (reserveOut * net) / (reserveIn + net)
}

/** minimumOut for a quoted output and a slippage tolerance: floor(out * (10000 - bps) / 10000). */
export const minimumOutFor = (amountOut: bigint, slippageBps: number): bigint => (amountOut * (BPS - BigInt(slippageBps))) / BPS

/** Price impact in bps: how much worse the execution price is than the pool's spot price (fee excluded). */
export const priceImpactBps = (amountIn: bigint, amountOut: bigint, reserveIn: bigint, reserveOut: bigint, feeBps: number): number => {
  const net = amountIn - feeOf(amountIn, feeBps)
  if (net <= 0n || reserveOut === 0n) return 0
  // spot output for `net` at the pre-trade price is net * reserveOut / reserveIn
  const spot = (net * reserveOut) / reserveIn
  if (spot === 0n) return 0
  return Number(((spot - amountOut) * BPS) / spot)
}
