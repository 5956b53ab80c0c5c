/**
 * rate_limit: sliding window per key walletId:agentId. Deny when the events already in the window are
 * at or above maxTx. Recording the event is an effect the evaluator returns (see evaluate.ts); this
 * function only reads the count the store supplied for this window length.
 */
import type { RateLimitRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateRateLimit = (rule: RateLimitRule, ctx: RuleContext): RuleOutcome => {
  const count = ctx.state.rateCounts?.get(rule.windowSeconds)
  if (count === undefined) {
    return deny(`rate_limit: event count for the ${rule.windowSeconds}s window is unavailable`)
  }
  if (count < rule.maxTx) return ALLOW
  return deny(`rate_limit: ${count} transactions in the last ${rule.windowSeconds}s, limit is ${rule.maxTx}`)
}
