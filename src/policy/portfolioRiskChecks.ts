/**
 * Portfolio risk checks over projected metrics (after this transaction): drawdown and daily loss over
 * their limits deny; a token or protocol exposure over its limit requires approval. "Over" is
 * strictly greater. A configured limit without metrics fails closed (deny).
 */
import type { PortfolioMetrics } from "./evaluationState.js"
import { ALLOW, combineOutcomes, deny, requireApproval, type RuleOutcome } from "./outcome.js"

/** Limits shared by the portfolio_risk rule and the wallet's portfolio risk controls. */
export interface PortfolioLimits {
  readonly maxDrawdownLamports?: bigint | undefined
  readonly maxDailyLossLamports?: bigint | undefined
  readonly maxExposureBpsPerToken?: number | undefined
  readonly maxExposureBpsPerProtocol?: number | undefined
}

const hasAnyLimit = (limits: PortfolioLimits): boolean =>
  limits.maxDrawdownLamports !== undefined ||
  limits.maxDailyLossLamports !== undefined ||
  limits.maxExposureBpsPerToken !== undefined ||
  limits.maxExposureBpsPerProtocol !== undefined

const exposuresAbove = (exposures: Readonly<Record<string, number>>, limit: number): Array<[string, number]> =>
  Object.entries(exposures).filter(([, bps]) => bps > limit)

export const portfolioRiskChecks = (
  limits: PortfolioLimits,
  metrics: PortfolioMetrics | undefined,
  label = "portfolio risk",
  unavailableReason?: string | undefined
): RuleOutcome => {
  if (!hasAnyLimit(limits)) return ALLOW
  if (metrics === undefined) return deny(`${label}: projected portfolio metrics are unavailable${unavailableReason === undefined ? "" : `: ${unavailableReason}`}`)
  const outcomes: Array<RuleOutcome> = []
  if (limits.maxDrawdownLamports !== undefined && metrics.drawdownLamports > limits.maxDrawdownLamports) {
    outcomes.push(deny(`${label}: drawdown ${metrics.drawdownLamports} exceeds maxDrawdownLamports ${limits.maxDrawdownLamports}`))
  }
  if (limits.maxDailyLossLamports !== undefined && metrics.dailyLossLamports > limits.maxDailyLossLamports) {
    outcomes.push(
      deny(`${label}: daily loss ${metrics.dailyLossLamports} exceeds maxDailyLossLamports ${limits.maxDailyLossLamports}`)
    )
  }
  if (limits.maxExposureBpsPerToken !== undefined) {
    for (const [token, bps] of exposuresAbove(metrics.tokenExposureBps, limits.maxExposureBpsPerToken)) {
      outcomes.push(
        requireApproval(`${label}: exposure to token ${token} would be ${bps} bps, above maxExposureBpsPerToken ${limits.maxExposureBpsPerToken}`)
      )
    }
  }
  if (limits.maxExposureBpsPerProtocol !== undefined) {
    for (const [protocol, bps] of exposuresAbove(metrics.protocolExposureBps, limits.maxExposureBpsPerProtocol)) {
      outcomes.push(
        requireApproval(
          `${label}: exposure to protocol ${protocol} would be ${bps} bps, above maxExposureBpsPerProtocol ${limits.maxExposureBpsPerProtocol}`
        )
      )
    }
  }
  return outcomes.length === 0 ? ALLOW : combineOutcomes(outcomes)
}
