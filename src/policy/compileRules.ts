/**
 * Stored rules arrive as JSON of unknown shape. They are decoded once per policy version (versions are
 * immutable) and kept as compiled rules: either a decoded rule or the reason it cannot be evaluated,
 * which the evaluator turns into a deny (fail closed).
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { POLICY_RULE_TYPES, PolicyRule } from "../../schemas/policy.js"
import { formatParseError } from "./formatParseError.js"

export type CompiledRule =
  | { readonly ok: true; readonly rule: PolicyRule }
  | {
      readonly ok: false
      readonly error: string
      /** One line per offending field, e.g. "rules[2].maxBps: must be between 0 and 10000". */
      readonly issues: ReadonlyArray<string>
    }

/** A policy as the store reads it: rules still undecoded JSON. */
export interface StoredPolicy {
  readonly id: string
  readonly walletId: string
  readonly name: string
  readonly version: number
  readonly active: boolean
  readonly rules: unknown
}

export interface CompiledPolicy {
  readonly id: string
  readonly walletId: string
  readonly name: string
  readonly version: number
  readonly active: boolean
  readonly rules: ReadonlyArray<CompiledRule>
}

const decodeRule = Schema.decodeUnknownEither(PolicyRule, { errors: "all" })
const knownTypes: ReadonlySet<string> = new Set(POLICY_RULE_TYPES)

const typeOf = (raw: unknown): unknown =>
  typeof raw === "object" && raw !== null && "type" in raw ? (raw as { type: unknown }).type : undefined

/** Decodes one stored rule; `path` names it in the error ("rules[3]"). */
export const compileRule = (raw: unknown, path: string): CompiledRule => {
  const type = typeOf(raw)
  if (typeof type === "string" && !knownTypes.has(type)) {
    const issue = `${path}.type: unknown rule type "${type}"`
    return { ok: false, error: issue, issues: [issue] }
  }
  const decoded = decodeRule(raw)
  if (Either.isRight(decoded)) return { ok: true, rule: decoded.right }
  const issues = formatParseError(decoded.left, path)
  return { ok: false, error: `${path} is malformed: ${issues.join("; ")}`, issues }
}

export const compileRules = (rawRules: unknown): ReadonlyArray<CompiledRule> => {
  if (!Array.isArray(rawRules)) {
    const issue = "rules: stored rules are not an array"
    return [{ ok: false, error: issue, issues: [issue] }]
  }
  return rawRules.map((raw, index) => compileRule(raw, `rules[${index}]`))
}

export const compilePolicy = (stored: StoredPolicy): CompiledPolicy => ({
  id: stored.id,
  walletId: stored.walletId,
  name: stored.name,
  version: stored.version,
  active: stored.active,
  rules: compileRules(stored.rules)
})

/**
 * A per-process cache of compiled rules keyed by policy id and version. Only a speed-up: a policy
 * version never changes, so a cached entry is never stale; `active` and `name` are taken fresh.
 */
export class CompiledRulesCache {
  private readonly entries = new Map<string, ReadonlyArray<CompiledRule>>()
  constructor(private readonly maxEntries = 10_000) {}

  compile(stored: StoredPolicy): CompiledPolicy {
    const key = `${stored.id}@${stored.version}`
    let rules = this.entries.get(key)
    if (rules === undefined) {
      rules = compileRules(stored.rules)
      // Oldest-first eviction keeps memory bounded without bookkeeping on every hit.
      if (this.entries.size >= this.maxEntries) {
        const oldest = this.entries.keys().next()
        if (oldest.done !== true) this.entries.delete(oldest.value)
      }
      this.entries.set(key, rules)
    }
    return { ...stored, rules }
  }

  get size(): number {
    return this.entries.size
  }
}
