/**
 * Projected portfolio metrics of a wallet (after the transaction), from its portfolio VALUE now (SOL, tokens and
 * positions at oracle prices: portfolioValue.ts) and the value history (PortfolioValueRepo). Definitions
 * (docs/decisions/portfolio.md):
 *   projected   = value now - this amount, except where the lamports move into something the value counts: a
 *                 protocol whose positions are valued (POSITION_PROTOCOLS), or a swap into a mint with an oracle
 *                 feed; there it is the value now (the next valuation shows what the move really cost)
 *                 A token payment (transfer_spl) also takes the value of the tokens it sends (at the holding's
 *                 oracle value), as SOL spent is taken.
 *   drawdown    = max(peak value observed before, value now) - projected, floored at 0
 *   daily loss  = the UTC day's first observed value (else value now) - projected, floored at 0
 *   exposure    = what the wallet holds in the protocol (or of the token mint) this transaction touches, plus this
 *                 amount, over the value now, in bps. Plain transfers (system-program, spl-token) are payments,
 *                 not positions, and create no exposure.
 */
import type { PortfolioMetrics } from "./projectedMetrics.js"
import { feedOfMint } from "../protocols/oracle/feeds.js"
import type { PortfolioBaseline } from "./portfolioValueRepo.js"
import type { PortfolioValue } from "./portfolioValue.js"

export const PAYMENT_PROTOCOLS: ReadonlyArray<string> = ["system-program", "spl-token"]
/** Protocols whose positions the portfolio value counts: what a transaction puts in is not lost. */
export const POSITION_PROTOCOLS: ReadonlyArray<string> = ["liquid-staking", "lending-market", "escrow"]

export interface PortfolioFacts {
  readonly protocol: string
  readonly tokenMint?: string | undefined
  /** a swap's output mint: the token the wallet gains exposure to */
  readonly outputMint?: string | undefined
  readonly amountLamports?: bigint | undefined
  /** tokens a payment sends out of the wallet (transfer_spl) */
  readonly tokenOutflow?: { readonly mint: string; readonly amount: bigint } | undefined
}

/** The lamport value of `outflow` at the wallet's holding of that mint (0 for a mint it holds none of, or unpriced). */
const outflowLamports = (value: PortfolioValue, outflow: PortfolioFacts["tokenOutflow"]): bigint => {
  const held = outflow === undefined ? undefined : value.holdings.get(outflow.mint)
  if (outflow === undefined || held === undefined || held.amount <= 0n) return 0n
  const sent = outflow.amount < held.amount ? outflow.amount : held.amount
  return (held.lamports * sent) / held.amount
}

const max = (a: bigint, b: bigint) => (a > b ? a : b)
const positive = (value: bigint) => max(value, 0n)
const bps = (part: bigint, whole: bigint): number => (whole <= 0n ? (part > 0n ? 10_000 : 0) : Number((part * 10_000n) / whole))

export const projectPortfolioMetrics = (baseline: PortfolioBaseline, value: PortfolioValue, facts: PortfolioFacts): PortfolioMetrics => {
  const current = value.totalLamports
  const amount = facts.amountLamports ?? 0n
  const staysInPortfolio = POSITION_PROTOCOLS.includes(facts.protocol) || (facts.outputMint !== undefined && feedOfMint(facts.outputMint) !== undefined)
  const projected = staysInPortfolio ? current : current - amount - outflowLamports(value, facts.tokenOutflow)
  const peak = max(baseline.peakLamports ?? current, current)
  const dayStart = baseline.dayStartLamports ?? current

  const protocolExposureBps: Record<string, number> = {}
  const tokenExposureBps: Record<string, number> = {}
  if (!PAYMENT_PROTOCOLS.includes(facts.protocol)) {
    protocolExposureBps[facts.protocol] = bps((value.byProtocol.get(facts.protocol) ?? 0n) + amount, current)
    const mint = facts.outputMint ?? facts.tokenMint
    if (mint !== undefined) tokenExposureBps[mint] = bps((value.byMint.get(mint) ?? 0n) + amount, current)
  }
  return {
    drawdownLamports: positive(peak - projected),
    dailyLossLamports: positive(dayStart - projected),
    tokenExposureBps,
    protocolExposureBps
  }
}
