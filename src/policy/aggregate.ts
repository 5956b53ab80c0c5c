/**
 * Aggregation over all rules of all active policies (spec: any deny gives deny; otherwise any
 * require_approval gives require_approval; otherwise allow). Reasons of every non-allow outcome are kept,
 * in evaluation order, so the caller can show all of them, not only the first.
 */
import type { Decision } from "../../schemas/policy.js"
import { stricterDecision, type RuleOutcome } from "./outcome.js"

export interface Aggregate {
  readonly decision: Decision
  readonly reasons: ReadonlyArray<string>
}

export const aggregateOutcomes = (outcomes: Iterable<RuleOutcome>): Aggregate => {
  let decision: Decision = "allow"
  const reasons: Array<string> = []
  for (const outcome of outcomes) {
    decision = stricterDecision(decision, outcome.decision)
    for (const reason of outcome.reasons) reasons.push(reason)
  }
  return { decision, reasons }
}
