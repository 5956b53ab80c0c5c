/**
 * program_allowlist: every program the transaction uses must be listed. Without the list of used
 * programs the rule cannot be checked, so it denies (fail closed).
 */
import type { ProgramAllowlistRule } from "../../../schemas/policy.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateProgramAllowlist = (rule: ProgramAllowlistRule, ctx: RuleContext): RuleOutcome => {
  const used = ctx.request.programIds
  if (used === undefined) return deny("program_allowlist: programIds are required to check the program allowlist")
  const unlisted = used.filter((programId) => !rule.programIds.includes(programId))
  if (unlisted.length === 0) return ALLOW
  return deny(`program_allowlist: program ${unlisted.join(", ")} is not allowlisted`)
}
