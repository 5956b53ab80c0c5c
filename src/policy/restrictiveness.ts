/**
 * "At least as restrictive" between rule sets, for safe migration. Rules combine by conjunction
 * (every rule must pass), so a target set is at least as restrictive as the current one when every
 * current rule is matched by some target rule of the same type that is at least as restrictive
 * (extra target rules only add constraints). Per type, t is at least as restrictive as c when:
 *   spending_limit, portfolio_risk: every limit set in c is set in t and t's value is <= c's;
 *   address/program/token/protocol allowlist: t's list is a subset of c's;
 *   address_blocklist: t's list is a superset of c's;
 *   rate_limit: t.maxTx <= c.maxTx and t.windowSeconds >= c.windowSeconds (a sliding window with the
 *     same average rate but a longer window allows bursts, so comparing the ratio alone is unsound);
 *   time_window: t's set of allowed UTC hours is contained in c's;
 *   max_slippage: t.maxBps <= c.maxBps;
 *   protocol_risk: same protocol; every bound set in c is set in t and <=; a configured (non-empty)
 *     pool or program list in c is configured in t as a subset.
 *   effect_bounds: maxSolOutflowLamports as a limit; every mint bounded in c is bounded in t no higher;
 *     allowedRecipients set in c is set in t as a subset; a forbid flag set in c is set in t.
 */
import type { PolicyRule } from "../../schemas/policy.js"
import { hourInWindow } from "./rules/timeWindow.js"

export interface RuleSetComparison {
  readonly moreRestrictiveOrEqual: boolean
  readonly differences: ReadonlyArray<string>
}

type RuleOf<T extends PolicyRule["type"]> = Extract<PolicyRule, { type: T }>

/** Each returns the ways t is LESS restrictive than c (empty: t is at least as restrictive). */
const numericBound = <K extends string>(
  field: K,
  c: Partial<Record<K, bigint | number>>,
  t: Partial<Record<K, bigint | number>>
): Array<string> => {
  const current = c[field]
  if (current === undefined) return []
  const target = t[field]
  if (target === undefined) return [`${field} ${current} removed`]
  return target > current ? [`${field} raised from ${current} to ${target}`] : []
}

const missingFrom = (items: ReadonlyArray<string>, container: ReadonlyArray<string>): Array<string> =>
  items.filter((item) => !container.includes(item))

const subsetList = (field: string, c: ReadonlyArray<string>, t: ReadonlyArray<string>): Array<string> => {
  const added = missingFrom(t, c)
  return added.length === 0 ? [] : [`${field} adds ${added.join(", ")}`]
}

const optionalSubsetList = (
  field: string,
  c: ReadonlyArray<string> | undefined,
  t: ReadonlyArray<string> | undefined
): Array<string> => {
  if (c === undefined || c.length === 0) return []
  if (t === undefined || t.length === 0) return [`${field} no longer restricted`]
  return subsetList(field, c, t)
}

const allowedHours = (rule: RuleOf<"time_window">): Array<number> =>
  Array.from({ length: 24 }, (_, hour) => hour).filter((hour) => hourInWindow(hour, rule.startHourUtc, rule.endHourUtc))

const relaxations = (c: PolicyRule, t: PolicyRule): Array<string> => {
  // The casts below rely on this guard: t is of c's type from here on.
  if (c.type !== t.type) return [`type changed from ${c.type} to ${t.type}`]
  switch (c.type) {
    case "spending_limit": {
      const target = t as RuleOf<"spending_limit">
      return [
        ...numericBound("maxLamportsPerTx", c, target),
        ...numericBound("maxLamportsPerDay", c, target),
        ...numericBound("requireApprovalAboveLamports", c, target)
      ]
    }
    case "address_allowlist":
      return subsetList("addresses", c.addresses, (t as RuleOf<"address_allowlist">).addresses)
    case "address_blocklist": {
      const dropped = missingFrom(c.addresses, (t as RuleOf<"address_blocklist">).addresses)
      return dropped.length === 0 ? [] : [`addresses no longer blocks ${dropped.join(", ")}`]
    }
    case "program_allowlist":
      return subsetList("programIds", c.programIds, (t as RuleOf<"program_allowlist">).programIds)
    case "token_allowlist":
      return subsetList("mints", c.mints, (t as RuleOf<"token_allowlist">).mints)
    case "protocol_allowlist":
      return subsetList("protocols", c.protocols, (t as RuleOf<"protocol_allowlist">).protocols)
    case "rate_limit": {
      const target = t as RuleOf<"rate_limit">
      const out = numericBound("maxTx", c, target)
      if (target.windowSeconds < c.windowSeconds) out.push(`windowSeconds shortened from ${c.windowSeconds} to ${target.windowSeconds}`)
      return out
    }
    case "time_window": {
      const extra = missingFrom(allowedHours(t as RuleOf<"time_window">).map(String), allowedHours(c).map(String))
      return extra.length === 0 ? [] : [`allows more UTC hours (${extra.join(", ")})`]
    }
    case "max_slippage":
      return numericBound("maxBps", c, t as RuleOf<"max_slippage">)
    case "protocol_risk": {
      const target = t as RuleOf<"protocol_risk">
      if (target.protocol !== c.protocol) return [`protocol changed from ${c.protocol} to ${target.protocol}`]
      return [
        ...numericBound("maxSlippageBps", c, target),
        ...numericBound("maxPoolConcentrationBps", c, target),
        ...numericBound("oracleDeviationBps", c, target),
        ...optionalSubsetList("allowedPools", c.allowedPools, target.allowedPools),
        ...optionalSubsetList("allowedPrograms", c.allowedPrograms, target.allowedPrograms)
      ]
    }
    case "portfolio_risk": {
      const target = t as RuleOf<"portfolio_risk">
      return [
        ...numericBound("maxDrawdownLamports", c, target),
        ...numericBound("maxDailyLossLamports", c, target),
        ...numericBound("maxExposureBpsPerToken", c, target),
        ...numericBound("maxExposureBpsPerProtocol", c, target)
      ]
    }
    case "effect_bounds": {
      const target = t as RuleOf<"effect_bounds">
      const tokenBounds = (c.maxTokenOutflows ?? []).flatMap(({ mint, maxAmount }) => {
        const bound = target.maxTokenOutflows?.find((candidate) => candidate.mint === mint)
        return bound === undefined
          ? [`maxTokenOutflows no longer bounds ${mint}`]
          : bound.maxAmount > maxAmount ? [`maxTokenOutflows raised for ${mint} from ${maxAmount} to ${bound.maxAmount}`] : []
      })
      const recipients = c.allowedRecipients === undefined
        ? []
        : target.allowedRecipients === undefined ? ["allowedRecipients no longer restricted"] : subsetList("allowedRecipients", c.allowedRecipients, target.allowedRecipients)
      const flags = (["forbidDelegates", "forbidAuthorityChanges", "forbidCloses"] as const).filter((flag) => c[flag] === true && target[flag] !== true).map((flag) => `${flag} dropped`)
      return [...numericBound("maxSolOutflowLamports", c, target), ...tokenBounds, ...recipients, ...flags]
    }
  }
}

/** Is `target` at least as restrictive as `current` (same type required)? */
export const ruleAtLeastAsRestrictive = (current: PolicyRule, target: PolicyRule): boolean =>
  current.type === target.type && relaxations(current, target).length === 0

export const compareRuleSets = (
  current: ReadonlyArray<PolicyRule>,
  target: ReadonlyArray<PolicyRule>
): RuleSetComparison => {
  const differences: Array<string> = []
  current.forEach((c, index) => {
    const sameType = target.filter((t) => t.type === c.type)
    if (sameType.some((t) => relaxations(c, t).length === 0)) return
    if (sameType.length === 0) {
      differences.push(`rules[${index}] ${c.type}: removed in the target`)
    } else {
      // Explain against the closest candidate: the one with the fewest relaxations.
      const closest = sameType.map((t) => relaxations(c, t)).sort((a, b) => a.length - b.length)[0]
      differences.push(`rules[${index}] ${c.type}: ${closest.join("; ")}`)
    }
  })
  return { moreRestrictiveOrEqual: differences.length === 0, differences }
}
