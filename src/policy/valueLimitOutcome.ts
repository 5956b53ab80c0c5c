/**
 * A decision with the value limits' verdict (issue 34 item 1): a limit the transaction would pass denies it,
 * whatever the rules said (its reasons first), and then nothing is counted (no daily spend, no value reserved).
 */
import type { PolicyDecision } from "../../schemas/policy.js"
import type { PolicyEffects } from "./evaluationState.js"

export interface CombinedDecision {
  readonly decision: PolicyDecision
  readonly effects: PolicyEffects | null
  readonly approvalSpend: bigint | null
  readonly pauseAgent: boolean
}

export const withValueLimits = (combined: CombinedDecision, denied: ReadonlyArray<string>): CombinedDecision =>
  denied.length === 0
    ? combined
    : {
        decision: { ...combined.decision, decision: "deny", reasons: [...denied, ...combined.decision.reasons.filter((reason) => !denied.includes(reason))] },
        effects: null,
        approvalSpend: null,
        pauseAgent: combined.pauseAgent
      }
