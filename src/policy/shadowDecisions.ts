/**
 * Shadow policies (issue 34 item 2, docs/decisions/shadow-policies.md): each of the wallet's shadow policies
 * judged on the real decision's own request and state, alone, as if it were the wallet's only policy; recorded
 * beside the enforced decision (a disagreement is `agrees: false`), never enforced.
 */
import type { Decision, EvaluateRequest, PolicyDecision } from "../../schemas/policy.js"
import type { CompiledPolicy } from "./compileRules.js"
import { evaluatePolicies } from "./evaluate.js"
import type { EvaluationState } from "./evaluationState.js"

export const shadowVerdicts = (shadows: ReadonlyArray<CompiledPolicy>, request: EvaluateRequest, state: EvaluationState, enforced: Decision) =>
  shadows.map((policy) => {
    const evaluation = evaluatePolicies([{ ...policy, active: true }], request, state)
    return { policyId: policy.id, name: policy.name, version: policy.version, decision: evaluation.decision, reasons: evaluation.reasons, agrees: evaluation.decision === enforced }
  })

/** The decision with its shadow verdicts (none: unchanged). */
export const withShadow = <D extends PolicyDecision>(decision: D, shadow: ReturnType<typeof shadowVerdicts>): D =>
  shadow.length === 0 ? decision : { ...decision, shadow }
