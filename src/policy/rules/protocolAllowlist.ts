/** protocol_allowlist: deny when the intent's protocol is not listed. */
import type { ProtocolAllowlistRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateProtocolAllowlist = (rule: ProtocolAllowlistRule, ctx: RuleContext): RuleOutcome => {
  const protocol = ctx.request.protocol
  if (rule.protocols.includes(protocol)) return ALLOW
  return deny(`protocol_allowlist: protocol ${protocol} is not allowlisted`)
}
