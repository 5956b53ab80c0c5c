/** address_blocklist: deny when the destination is listed. */
import type { AddressBlocklistRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateAddressBlocklist = (rule: AddressBlocklistRule, ctx: RuleContext): RuleOutcome => {
  const destination = ctx.request.destination
  if (destination === undefined || !rule.addresses.includes(destination)) return ALLOW
  return deny(`address_blocklist: destination ${destination} is blocklisted`)
}
