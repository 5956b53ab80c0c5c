/**
 * Plans a migration of a policy to the rules of one of its versions. safe proceeds only when the
 * target decodes cleanly and is at least as restrictive as the current rules; force proceeds when the
 * target decodes (undecodable rules are never written as a new version); dry_run never proceeds.
 * A current rule that does not decode denies everything, so moving away from it is never "safe".
 */
import type { MigrationMode } from "../../schemas/policy.js"
import { compileRules } from "./compileRules.js"
import { compareRuleSets } from "./restrictiveness.js"

export interface MigrationPlan {
  readonly proceed: boolean
  readonly moreRestrictiveOrEqual: boolean
  readonly differences: ReadonlyArray<string>
  /** Field-level errors of the target's rules; non-empty blocks every mode. */
  readonly errors: ReadonlyArray<string>
}

export const planMigration = (currentRules: unknown, targetRules: unknown, mode: MigrationMode): MigrationPlan => {
  const current = compileRules(currentRules)
  const target = compileRules(targetRules)
  const errors = target.flatMap((rule) => (rule.ok ? [] : rule.issues))
  const undecodableCurrent = current.flatMap((rule) => (rule.ok ? [] : [`current ${rule.error} (it denies everything today)`]))
  const comparison = compareRuleSets(
    current.flatMap((rule) => (rule.ok ? [rule.rule] : [])),
    target.flatMap((rule) => (rule.ok ? [rule.rule] : []))
  )
  const differences = [...undecodableCurrent, ...comparison.differences]
  const moreRestrictiveOrEqual = differences.length === 0 && errors.length === 0
  const proceed = errors.length === 0 && (mode === "force" || (mode === "safe" && moreRestrictiveOrEqual))
  return { proceed, moreRestrictiveOrEqual, differences, errors }
}
