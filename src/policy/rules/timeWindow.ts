/**
 * time_window: allow when the UTC hour of the transaction is within [start, end], both hours
 * inclusive (so end 6 admits 06:00-06:59). start > end wraps around midnight (22-6 is 22:00-06:59).
 */
import type { TimeWindowRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"
import { utcHour } from "../utcTime.js"

export const hourInWindow = (hour: number, startHourUtc: number, endHourUtc: number): boolean =>
  startHourUtc <= endHourUtc ? hour >= startHourUtc && hour <= endHourUtc : hour >= startHourUtc || hour <= endHourUtc

export const evaluateTimeWindow = (rule: TimeWindowRule, ctx: RuleContext): RuleOutcome => {
  const hour = utcHour(ctx.instant)
  if (hourInWindow(hour, rule.startHourUtc, rule.endHourUtc)) return ALLOW
  return deny(`time_window: UTC hour ${hour} is outside ${rule.startHourUtc}-${rule.endHourUtc}`)
}
