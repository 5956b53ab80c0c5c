/** The result of one rule or one risk check: a decision and the reasons behind it. */
import type { Decision } from "../../schemas/policy.js"

export interface RuleOutcome {
  readonly decision: Decision
  readonly reasons: ReadonlyArray<string>
}

/** Shared so the common path (a rule that passes) allocates nothing. */
export const ALLOW: RuleOutcome = Object.freeze({ decision: "allow", reasons: Object.freeze([]) as ReadonlyArray<string> })

export const deny = (reason: string): RuleOutcome => ({ decision: "deny", reasons: [reason] })

export const requireApproval = (reason: string): RuleOutcome => ({ decision: "require_approval", reasons: [reason] })

const severity: Record<Decision, number> = { allow: 0, require_approval: 1, deny: 2 }

/** deny beats require_approval beats allow. */
export const stricterDecision = (a: Decision, b: Decision): Decision => (severity[a] >= severity[b] ? a : b)

/** Folds the outcomes of several checks of one rule, keeping every reason in order. */
export const combineOutcomes = (outcomes: ReadonlyArray<RuleOutcome>): RuleOutcome => {
  let decision: Decision = "allow"
  const reasons: Array<string> = []
  for (const outcome of outcomes) {
    if (outcome.decision === "allow") continue
    decision = stricterDecision(decision, outcome.decision)
    for (const reason of outcome.reasons) reasons.push(reason)
  }
  return decision === "allow" ? ALLOW : { decision, reasons }
}
