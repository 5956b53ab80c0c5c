/**
 * Compiled rules per (policy id, version), kept per process. Versions are immutable, but the entry
 * also remembers the stored JSON text and recompiles when it differs, so a row changed behind the
 * service's back (a hand-edited or corrupted rule) is evaluated as it now is, never from a stale cache.
 */
import { compileRules, type CompiledPolicy, type CompiledRule } from "./compileRules.js"
import type { Policy } from "../../schemas/policy.js"
import { parseStoredRules, type StoredPolicyRow } from "./policyRepo.js"

/** What evaluation needs of a policy besides its rules. */
export type PolicyHeader = Pick<Policy, "id" | "walletId" | "name" | "version" | "active">

export class CompiledPolicyCache {
  private readonly entries = new Map<string, { readonly text: string; readonly rules: ReadonlyArray<CompiledRule> }>()
  constructor(private readonly maxEntries = 10_000) {}

  compile(stored: StoredPolicyRow): CompiledPolicy {
    return this.compileText(stored.policy, stored.rulesText, () => stored.policy.rules)
  }

  /** As `compile`, from the stored text: it is parsed only when the entry is missing or stale. */
  compileText(policy: PolicyHeader, rulesText: string, rules: () => unknown = () => parseStoredRules(rulesText)): CompiledPolicy {
    const key = `${policy.id}@${policy.version}`
    let entry = this.entries.get(key)
    if (entry === undefined || entry.text !== rulesText) {
      entry = { text: rulesText, rules: compileRules(rules()) }
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next()
        if (oldest.done !== true) this.entries.delete(oldest.value)
      }
      this.entries.set(key, entry)
    }
    return { id: policy.id, walletId: policy.walletId, name: policy.name, version: policy.version, active: policy.active, rules: entry.rules }
  }
}
