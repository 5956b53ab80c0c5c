/**
 * The compatibility check of a rule set (POST /policies/compatibility-check and before a migration):
 * errors are rules that do not decode, named by field path ("rules[2].maxBps: ..."); warnings are
 * valid rules that probably do not mean what the author wants.
 */
import type { CompatibilityCheckResult, PolicyRule } from "../../schemas/policy.js"
import { compileRule } from "./compileRules.js"
import { hourInWindow } from "./rules/timeWindow.js"

type RuleOf<T extends PolicyRule["type"]> = Extract<PolicyRule, { type: T }>
interface Indexed<R> {
  readonly index: number
  readonly rule: R
}

/** Types where two rules are legitimate (both apply, e.g. per-protocol risk or two rate windows). */
const REPEATABLE: ReadonlySet<string> = new Set(["rate_limit", "protocol_risk"])

const ofType = <T extends PolicyRule["type"]>(rules: ReadonlyArray<Indexed<PolicyRule>>, type: T) =>
  rules.filter((r): r is Indexed<RuleOf<T>> => r.rule.type === type)

const ruleWarnings = ({ index, rule }: Indexed<PolicyRule>): Array<string> => {
  const at = `rules[${index}] ${rule.type}`
  switch (rule.type) {
    case "spending_limit": {
      const { maxLamportsPerTx: perTx, maxLamportsPerDay: perDay, requireApprovalAboveLamports: above } = rule
      const out: Array<string> = []
      if (perTx === undefined && perDay === undefined && above === undefined) out.push(`${at}: sets no limit and has no effect`)
      if (perTx !== undefined && perDay !== undefined && perTx > perDay) {
        out.push(`${at}: maxLamportsPerTx ${perTx} is above maxLamportsPerDay ${perDay}; the daily limit binds first`)
      }
      if (above !== undefined && perTx !== undefined && above >= perTx) {
        out.push(`${at}: requireApprovalAboveLamports ${above} is not below maxLamportsPerTx ${perTx}; approval is never asked`)
      }
      return out
    }
    case "address_allowlist":
    case "program_allowlist":
    case "token_allowlist":
    case "protocol_allowlist": {
      const list = rule.type === "address_allowlist" ? rule.addresses : rule.type === "program_allowlist" ? rule.programIds : rule.type === "token_allowlist" ? rule.mints : rule.protocols
      return list.length === 0 ? [`${at}: the list is empty, so it denies every matching transaction`] : []
    }
    case "rate_limit":
      return rule.maxTx === 0 ? [`${at}: maxTx 0 denies every transaction`] : []
    case "time_window":
      return rule.startHourUtc === rule.endHourUtc
        ? [`${at}: the window is the single hour ${rule.startHourUtc}:00-${rule.startHourUtc}:59 UTC`]
        : []
    case "max_slippage":
      return rule.maxBps === 0 ? [`${at}: maxBps 0 denies every swap with slippage`] : []
    case "portfolio_risk":
      return rule.maxDrawdownLamports === undefined &&
        rule.maxDailyLossLamports === undefined &&
        rule.maxExposureBpsPerToken === undefined &&
        rule.maxExposureBpsPerProtocol === undefined
        ? [`${at}: sets no limit and has no effect`]
        : []
    case "effect_bounds":
      return rule.maxSolOutflowLamports === undefined && rule.maxTokenOutflows === undefined && rule.allowedRecipients === undefined &&
        rule.forbidDelegates !== true && rule.forbidAuthorityChanges !== true && rule.forbidCloses !== true
        ? [`${at}: sets no bound and has no effect`]
        : rule.allowedRecipients?.length === 0 ? [`${at}: allowedRecipients is empty, so any transaction that pays anyone is denied`] : []
    default:
      return []
  }
}

const crossRuleWarnings = (rules: ReadonlyArray<Indexed<PolicyRule>>): Array<string> => {
  const out: Array<string> = []
  const seenTypes = new Map<string, number>()
  for (const { index, rule } of rules) {
    const first = seenTypes.get(rule.type)
    if (first === undefined) seenTypes.set(rule.type, index)
    else if (!REPEATABLE.has(rule.type)) {
      out.push(`rules[${index}] ${rule.type}: duplicates rules[${first}]; both apply, the stricter one wins`)
    }
  }
  for (const block of ofType(rules, "address_blocklist")) {
    for (const allow of ofType(rules, "address_allowlist")) {
      const both = block.rule.addresses.filter((a) => allow.rule.addresses.includes(a))
      if (both.length > 0) {
        out.push(`address ${both.join(", ")} is both allowlisted (rules[${allow.index}]) and blocklisted (rules[${block.index}]); the blocklist wins`)
      }
    }
  }
  const protocolAllowlists = ofType(rules, "protocol_allowlist")
  for (const risk of ofType(rules, "protocol_risk")) {
    for (const allow of protocolAllowlists) {
      if (!allow.rule.protocols.includes(risk.rule.protocol)) {
        out.push(`rules[${risk.index}] protocol_risk: protocol ${risk.rule.protocol} is not in the protocol_allowlist rules[${allow.index}], so this rule never applies`)
      }
    }
  }
  const windows = ofType(rules, "time_window")
  for (let i = 0; i < windows.length; i++) {
    for (let j = i + 1; j < windows.length; j++) {
      const a = windows[i].rule
      const b = windows[j].rule
      const overlap = Array.from({ length: 24 }, (_, h) => h).some((h) => inWindow(h, a) && inWindow(h, b))
      if (!overlap) out.push(`time_window rules[${windows[i].index}] and rules[${windows[j].index}] share no hour: every transaction is denied`)
    }
  }
  return out
}

const inWindow = (hour: number, w: RuleOf<"time_window">): boolean => hourInWindow(hour, w.startHourUtc, w.endHourUtc)

export const checkCompatibility = (rules: unknown): CompatibilityCheckResult => {
  if (!Array.isArray(rules)) return { compatible: false, warnings: [], errors: ["rules: must be an array"] }
  const errors: Array<string> = []
  const valid: Array<Indexed<PolicyRule>> = []
  rules.forEach((raw: unknown, index) => {
    const compiled = compileRule(raw, `rules[${index}]`)
    if (compiled.ok) valid.push({ index, rule: compiled.rule })
    else errors.push(...compiled.issues)
  })
  const warnings = [...valid.flatMap(ruleWarnings), ...crossRuleWarnings(valid)]
  return { compatible: errors.length === 0, warnings, errors }
}
