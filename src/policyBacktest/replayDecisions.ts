/**
 * The backtest's replay, pure (issue 34 item 2): each recorded transaction, oldest first, judged by the
 * candidate policy as the engine would have judged it then: at its own time, with the day's spend and the
 * rate-limit windows of the replay so far (what the candidate allowed or sent to approval counts, what it
 * denied does not), from the intent and build facts as recorded. Portfolio and oracle facts were not recorded:
 * a portfolio_risk rule therefore denies (fail closed), as it would without them.
 */
import type { Decision, EvaluateRequest, RuleTrace } from "../../schemas/policy.js"
import type { TransactionType } from "../../schemas/intent.js"
import { intentSpendLamports } from "../pipeline/intentSpend.js"
import type { RecordedTransaction } from "../pipeline/recordedTransactions.js"
import type { CompiledPolicy } from "../policy/compileRules.js"
import { evaluatePolicies } from "../policy/evaluate.js"
import { rateLimitKey, type EvaluationState } from "../policy/evaluationState.js"
import { explainPolicies } from "../policy/explainDecision.js"
import { utcDayKey } from "../policy/utcTime.js"

export interface ReplayedDecision {
  readonly txId: string
  readonly createdAt: string
  readonly type: string
  readonly amountLamports: bigint
  readonly status: string
  readonly recordedDecision: Decision | null
  readonly decision: Decision
  readonly reasons: ReadonlyArray<string>
  readonly changed: boolean
  readonly trace: ReadonlyArray<RuleTrace>
}

const recordedDecisionOf = (row: RecordedTransaction): Decision | null => {
  const decision = row.policy_decision?.decision
  return decision === "allow" || decision === "deny" || decision === "require_approval" ? decision : null
}

export const replayDecisions = (walletId: string, candidate: CompiledPolicy, rows: ReadonlyArray<RecordedTransaction>): ReadonlyArray<ReplayedDecision> => {
  const spentByDay = new Map<string, bigint>()
  const events: Array<{ key: string; at: number }> = []
  const windows = candidate.rules.flatMap((compiled) => (compiled.ok && compiled.rule.type === "rate_limit" ? [compiled.rule.windowSeconds] : []))
  return rows.map((row) => {
    const at = new Date(row.created_at)
    const facts = row.build_facts
    const amountLamports = facts?.amountLamports === null || facts?.amountLamports === undefined ? intentSpendLamports(row.type as TransactionType, row.intent) : BigInt(facts.amountLamports)
    const request = {
      walletId, type: row.type, protocol: row.protocol as EvaluateRequest["protocol"], amountLamports, timestamp: at,
      ...(row.agent_id === null ? {} : { agentId: row.agent_id }),
      ...(facts?.destination === null || facts?.destination === undefined ? {} : { destination: facts.destination }),
      ...(facts?.tokenMint === null || facts?.tokenMint === undefined ? {} : { tokenMint: facts.tokenMint }),
      ...(facts?.programIds === undefined ? {} : { programIds: facts.programIds }),
      ...(typeof row.intent.slippageBps === "number" ? { slippageBps: row.intent.slippageBps } : {})
    }
    const key = rateLimitKey(request)
    const state: EvaluationState = {
      now: at,
      dailySpentLamports: spentByDay.get(utcDayKey(at)) ?? 0n,
      rateCounts: new Map(windows.map((seconds) => [seconds, events.filter((event) => event.key === key && event.at > at.getTime() - seconds * 1000).length])),
      transaction: { ...(facts?.pools?.[0] === undefined ? {} : { pool: facts.pools[0] }) }
    }
    const evaluation = evaluatePolicies([candidate], request, state)
    if (evaluation.decision !== "deny") {
      spentByDay.set(utcDayKey(at), (spentByDay.get(utcDayKey(at)) ?? 0n) + amountLamports)
      events.push({ key, at: at.getTime() })
    }
    const recorded = recordedDecisionOf(row)
    return {
      txId: row.id, createdAt: at.toISOString(), type: row.type, amountLamports, status: row.status, recordedDecision: recorded,
      decision: evaluation.decision, reasons: evaluation.reasons, changed: recorded !== null && recorded !== evaluation.decision,
      trace: explainPolicies([candidate], request, state)
    }
  })
}
