/**
 * The policy evaluator: every rule of every active policy of the wallet, in order, aggregated
 * (any deny, else any require_approval, else allow); the critical risk tier requires approval.
 * Pure: the store passes a state snapshot and applies the returned effects in the same SQL
 * transaction. When effects apply (decisions in docs/decisions/policy.md):
 *   allow            -> `effects` now: daily spend + rate events.
 *   require_approval -> `effects` now: rate events only (a pending approval counts as an attempt);
 *                       `effectsOnApproval` (the daily spend) when a human approves and it moves to
 *                       signing, counted on the approval's UTC day (effectsAtApproval).
 *   deny             -> nothing.
 */
import type { Decision, EvaluateRequest, RiskTier } from "../../schemas/policy.js"
import { aggregateOutcomes } from "./aggregate.js"
import type { CompiledPolicy } from "./compileRules.js"
import { evaluateRule } from "./evaluateRule.js"
import {
  evaluationInstant,
  rateLimitKey,
  type EvaluationState,
  type PolicyEffects,
  type RateEvent,
  type RuleContext
} from "./evaluationState.js"
import type { RuleOutcome } from "./outcome.js"
import { deriveRiskTier, tierRequiresApproval } from "./riskTier.js"
import { utcDayKey } from "./utcTime.js"

export interface PolicyEvaluation {
  readonly decision: Decision
  readonly reasons: ReadonlyArray<string>
  readonly riskTier: RiskTier
  /** To apply now, atomically with recording the decision. */
  readonly effects: PolicyEffects
  /** For require_approval: what to count when the approval is granted (see effectsAtApproval); otherwise null. */
  readonly effectsOnApproval: ApprovalEffects | null
}

/** Deferred until a human approves: the spend counts on the day of the approval, not of the request. */
export interface ApprovalEffects {
  readonly addDailySpendLamports: bigint
}

export const effectsAtApproval = (pending: ApprovalEffects, approvedAt: Date): PolicyEffects => ({
  addDailySpendLamports: pending.addDailySpendLamports,
  utcDay: utcDayKey(approvedAt),
  rateEvents: [],
  at: approvedAt
})

/** The policies that take part: active ones of the request's wallet. */
export const applicablePolicies = (
  policies: ReadonlyArray<CompiledPolicy>,
  walletId: string
): ReadonlyArray<CompiledPolicy> => policies.filter((policy) => policy.active && policy.walletId === walletId)

const label = (policy: CompiledPolicy, index: number): string => `policy "${policy.name}" v${policy.version} rules[${index}]`

const withLabel = (outcome: RuleOutcome, prefix: string): RuleOutcome =>
  outcome.decision === "allow" ? outcome : { decision: outcome.decision, reasons: outcome.reasons.map((r) => `${prefix}: ${r}`) }

export const evaluatePolicies = (
  policies: ReadonlyArray<CompiledPolicy>,
  request: EvaluateRequest,
  state: EvaluationState
): PolicyEvaluation => {
  const instant = evaluationInstant(request, state.now)
  const ctx: RuleContext = { request, instant, state }
  const outcomes: Array<RuleOutcome> = []
  const rateWindows: Array<number> = []

  for (const policy of policies) {
    if (!policy.active || policy.walletId !== request.walletId) continue
    const rules = policy.rules
    for (let index = 0; index < rules.length; index++) {
      const compiled = rules[index]
      if (!compiled.ok) {
        outcomes.push({ decision: "deny", reasons: [`policy "${policy.name}" v${policy.version} cannot be evaluated: ${compiled.error}`] })
        continue
      }
      const rule = compiled.rule
      if (rule.type === "rate_limit" && !rateWindows.includes(rule.windowSeconds)) rateWindows.push(rule.windowSeconds)
      const outcome = evaluateRule(rule, ctx)
      if (outcome.decision !== "allow") outcomes.push(withLabel(outcome, label(policy, index)))
    }
  }

  const riskTier = deriveRiskTier(request)
  if (tierRequiresApproval(riskTier)) {
    outcomes.push({ decision: "require_approval", reasons: [`risk tier ${riskTier} requires approval`] })
  }
  const { decision, reasons } = aggregateOutcomes(outcomes)

  const utcDay = utcDayKey(instant)
  const key = rateLimitKey(request)
  const rateEvents: ReadonlyArray<RateEvent> = rateWindows.map((windowSeconds) => ({ key, windowSeconds }))
  const spend = request.amountLamports ?? 0n
  const none: PolicyEffects = { addDailySpendLamports: 0n, utcDay, rateEvents: [], at: instant }

  switch (decision) {
    case "allow":
      return { decision, reasons, riskTier, effects: { ...none, addDailySpendLamports: spend, rateEvents }, effectsOnApproval: null }
    case "require_approval":
      return {
        decision,
        reasons,
        riskTier,
        effects: { ...none, rateEvents },
        effectsOnApproval: { addDailySpendLamports: spend }
      }
    case "deny":
      return { decision, reasons, riskTier, effects: none, effectsOnApproval: null }
  }
}
