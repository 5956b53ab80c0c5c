/** token_allowlist: a token mint, when present, must be listed. No mint: allow (spec). */
import type { TokenAllowlistRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateTokenAllowlist = (rule: TokenAllowlistRule, ctx: RuleContext): RuleOutcome => {
  const mint = ctx.request.tokenMint
  if (mint === undefined || rule.mints.includes(mint)) return ALLOW
  return deny(`token_allowlist: token mint ${mint} is not allowlisted`)
}
