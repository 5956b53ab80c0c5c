/**
 * spending_limit: deny above the per-transaction max; deny when the day's counted spend plus this
 * amount exceeds the daily max; require approval when the amount is strictly above the threshold
 * (amount == threshold needs no approval: the field is named "...Above...", see decisions).
 */
import type { SpendingLimitRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, combineOutcomes, deny, requireApproval, type RuleOutcome } from "../outcome.js"

export const evaluateSpendingLimit = (rule: SpendingLimitRule, ctx: RuleContext): RuleOutcome => {
  const { maxLamportsPerTx, maxLamportsPerDay, requireApprovalAboveLamports } = rule
  if (maxLamportsPerTx === undefined && maxLamportsPerDay === undefined && requireApprovalAboveLamports === undefined) {
    return ALLOW
  }
  const amount = ctx.request.amountLamports
  // Fail closed: a limit cannot be checked against an unknown amount.
  if (amount === undefined) return deny("spending_limit: amountLamports is required to check the limit")

  const outcomes: Array<RuleOutcome> = []
  if (maxLamportsPerTx !== undefined && amount > maxLamportsPerTx) {
    outcomes.push(deny(`spending_limit: amount ${amount} exceeds maxLamportsPerTx ${maxLamportsPerTx}`))
  }
  if (maxLamportsPerDay !== undefined) {
    const spent = ctx.state.dailySpentLamports
    if (spent === undefined) {
      outcomes.push(deny("spending_limit: today's spend is unavailable, cannot check maxLamportsPerDay"))
    } else if (spent + amount > maxLamportsPerDay) {
      outcomes.push(
        deny(`spending_limit: today's spend ${spent} plus amount ${amount} exceeds maxLamportsPerDay ${maxLamportsPerDay}`)
      )
    }
  }
  if (requireApprovalAboveLamports !== undefined && amount > requireApprovalAboveLamports) {
    outcomes.push(
      requireApproval(`spending_limit: amount ${amount} is above requireApprovalAboveLamports ${requireApprovalAboveLamports}`)
    )
  }
  return outcomes.length === 0 ? ALLOW : combineOutcomes(outcomes)
}
