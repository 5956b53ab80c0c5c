/**
 * Tells the store which parts of the state snapshot a set of policies needs, so it runs only those
 * queries (under the wallet's row lock, in the transaction that will also apply the effects).
 */
import type { EvaluateRequest } from "../../schemas/policy.js"
import type { CompiledPolicy } from "./compileRules.js"
import { evaluationInstant, rateLimitKey } from "./evaluationState.js"
import { utcDayKey } from "./utcTime.js"

export interface RequiredState {
  readonly instant: Date
  /** Day key of the daily spend counter to read (and later increment). */
  readonly utcDay: string
  readonly rateKey: string
  /** Distinct rate_limit window lengths: count events per (rateKey, windowSeconds) with at > instant - window. */
  readonly rateWindowsSeconds: ReadonlyArray<number>
  readonly dailySpend: boolean
  readonly portfolioMetrics: boolean
  /** protocol_risk rules for the request's protocol need pool / pre-balance / oracle facts. */
  readonly transactionFacts: boolean
  /** Smallest daily cap among the rules, to re-check the day's spend when an approval is granted. */
  readonly minDailyLimitLamports: bigint | undefined
}

export const requiredState = (
  policies: ReadonlyArray<CompiledPolicy>,
  request: EvaluateRequest,
  now: Date
): RequiredState => {
  const instant = evaluationInstant(request, now)
  const windows: Array<number> = []
  let dailySpend = false
  let portfolioMetrics = false
  let transactionFacts = false
  let minDailyLimitLamports: bigint | undefined
  for (const policy of policies) {
    if (!policy.active || policy.walletId !== request.walletId) continue
    for (const compiled of policy.rules) {
      if (!compiled.ok) continue
      const rule = compiled.rule
      switch (rule.type) {
        case "rate_limit":
          if (!windows.includes(rule.windowSeconds)) windows.push(rule.windowSeconds)
          break
        case "spending_limit":
          if (rule.maxLamportsPerDay !== undefined) {
            dailySpend = true
            if (minDailyLimitLamports === undefined || rule.maxLamportsPerDay < minDailyLimitLamports) {
              minDailyLimitLamports = rule.maxLamportsPerDay
            }
          }
          break
        case "portfolio_risk":
          portfolioMetrics = true
          break
        case "protocol_risk":
          if (rule.protocol === request.protocol) transactionFacts = true
          break
      }
    }
  }
  return {
    instant,
    utcDay: utcDayKey(instant),
    rateKey: rateLimitKey(request),
    rateWindowsSeconds: windows,
    dailySpend,
    portfolioMetrics,
    transactionFacts,
    minDailyLimitLamports
  }
}
