/** token_allowlist: a token mint, when present, must be listed (a swap's output mint too). No mint: allow (spec). */
import type { TokenAllowlistRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateTokenAllowlist = (rule: TokenAllowlistRule, ctx: RuleContext): RuleOutcome => {
  const mints = [ctx.request.tokenMint, ctx.state.transaction?.outputMint].filter((m): m is string => m !== undefined)
  const unlisted = mints.find((mint) => !rule.mints.includes(mint))
  return unlisted === undefined ? ALLOW : deny(`token_allowlist: token mint ${unlisted} is not allowlisted`)
}
