/** address_allowlist: a destination, when present, must be listed. No destination: allow (spec). */
import type { AddressAllowlistRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateAddressAllowlist = (rule: AddressAllowlistRule, ctx: RuleContext): RuleOutcome => {
  const destination = ctx.request.destination
  if (destination === undefined || rule.addresses.includes(destination)) return ALLOW
  return deny(`address_allowlist: destination ${destination} is not allowlisted`)
}
