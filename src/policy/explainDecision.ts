/**
 * Explanations (issue 34 item 2): a decision's trace, one entry per check, saying what the check looked at,
 * the value it observed, its limit and its verdict. Pure: the rules are evaluated again, one by one, on the
 * same request and state snapshot as the decision (the evaluators are pure, so the verdicts are the ones the
 * decision aggregated).
 */
import type { EvaluateRequest, PolicyRule, RuleTrace } from "../../schemas/policy.js"
import type { CompiledPolicy } from "./compileRules.js"
import { evaluateRule } from "./evaluateRule.js"
import { evaluationInstant, type EvaluationState, type RuleContext } from "./evaluationState.js"
import type { RuleOutcome } from "./outcome.js"
import { deriveRiskTier, tierRequiresApproval } from "./riskTier.js"

/**
 * JSON-safe and as the wire shows it: a bigint as a number while it is a safe integer (lamports leave the
 * gateway as integers, and a proof's hash over the recorded decision must recompute from /replay), else a
 * decimal string; undefined dropped.
 */
const plain = (value: unknown): unknown => {
  if (typeof value === "bigint") return value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString()
  if (value instanceof Map) return Object.fromEntries([...value].map(([key, entry]) => [String(key), plain(entry)]))
  if (Array.isArray(value)) return value.map(plain)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined).map(([key, entry]) => [key, plain(entry)]))
  }
  return value
}

const record = (value: Record<string, unknown>) => plain(value) as Record<string, unknown>

/** What a rule of each type looks at, and the values it saw. */
const observedBy = (rule: PolicyRule, ctx: RuleContext): Record<string, unknown> => {
  const { request, state, instant } = ctx
  const tx = state.transaction
  switch (rule.type) {
    case "spending_limit":
      return { amountLamports: request.amountLamports, dailySpentLamports: state.dailySpentLamports }
    case "address_allowlist":
    case "address_blocklist":
      return { destination: request.destination ?? null }
    case "program_allowlist":
      return { programIds: request.programIds ?? null }
    case "token_allowlist":
      return { tokenMint: request.tokenMint ?? null }
    case "protocol_allowlist":
      return { protocol: request.protocol }
    case "rate_limit":
      return { transactionsInWindow: state.rateCounts?.get(rule.windowSeconds) }
    case "time_window":
      return { utcHour: instant.getUTCHours() }
    case "max_slippage":
      return { slippageBps: request.slippageBps ?? null }
    case "protocol_risk":
      return {
        protocol: request.protocol, slippageBps: request.slippageBps, pool: tx?.pool, programIds: request.programIds, amountLamports: request.amountLamports,
        preBalanceLamports: tx?.preBalanceLamports, quoteAgeSeconds: tx?.quoteAgeSeconds, oracleDeviationBps: tx?.oracleDeviationBps
      }
    case "portfolio_risk":
      return { portfolio: state.portfolio ?? null, unavailable: state.portfolioUnavailable }
    default:
      return { effect: tx?.effect === undefined ? null : "the transaction's whole effect (see the simulation)" }
  }
}

const limitOf = ({ type: _type, ...limit }: PolicyRule): Record<string, unknown> => record(limit)

export const traceEntry = (source: string, ruleType: string, observed: Record<string, unknown>, limit: Record<string, unknown>, outcome: RuleOutcome): RuleTrace => ({
  source, ruleType, lookedAt: Object.keys(record(observed)), observed: record(observed), limit: record(limit), verdict: outcome.decision, reasons: [...outcome.reasons]
})

/** Every rule of every policy that takes part, then the risk tier, as the evaluator judged them. */
export const explainPolicies = (policies: ReadonlyArray<CompiledPolicy>, request: EvaluateRequest, state: EvaluationState): ReadonlyArray<RuleTrace> => {
  const ctx: RuleContext = { request, instant: evaluationInstant(request, state.now), state }
  const trace: Array<RuleTrace> = []
  for (const policy of policies) {
    if (!policy.active || policy.walletId !== request.walletId) continue
    policy.rules.forEach((compiled, index) => {
      const source = `policy "${policy.name}" v${policy.version} rules[${index}]`
      if (!compiled.ok) {
        trace.push(traceEntry(source, "unreadable", {}, {}, { decision: "deny", reasons: [compiled.error] }))
        return
      }
      trace.push(traceEntry(source, compiled.rule.type, observedBy(compiled.rule, ctx), limitOf(compiled.rule), evaluateRule(compiled.rule, ctx)))
    })
  }
  const tier = deriveRiskTier(request)
  trace.push(
    traceEntry("risk tier", "risk_tier", { type: request.type, amountLamports: request.amountLamports, riskTier: tier }, { approvalAt: "critical" },
      tierRequiresApproval(tier) ? { decision: "require_approval", reasons: [`risk tier ${tier} requires approval`] } : { decision: "allow", reasons: [] })
  )
  return trace
}

/**
 * A transaction's checks outside the policies, explained: gasless eligibility, the protocol risk config, the
 * portfolio controls, the value limits and an approval the request asked for (transactionRisk.ts judges them).
 */
export const checkEntries = (checks: ReadonlyArray<{ readonly source: string; readonly observed: Record<string, unknown>; readonly limit: Record<string, unknown>; readonly outcome: RuleOutcome }>) =>
  checks.map((check) => traceEntry(check.source, check.source.replace(/ /g, "_"), check.observed, check.limit, check.outcome))
