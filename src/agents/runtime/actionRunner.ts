/**
 * Performs one claimed action the way an external caller would: a paper trade through the strategy
 * component, or the agents core's `execute` (capability allowlists, manifest, budget, then the pipeline
 * with policy) as the agent's own tenant, with the run's deterministic idempotency key. A refusal is an
 * outcome (the run stays counted, the action is `failed` with the reason), not a crash; a defect
 * propagates, so the supervisor restarts the actor and the still-`claimed` action is re-sent.
 */
import { Effect } from "effect"
import type { CallerInfo } from "../../gateway/caller.js"
import { AgentExecution } from "../agentExecution.js"
import type { StoredAgent } from "../agentRow.js"
import { Strategy } from "../strategy.js"
import type { ActionOutcome, ClaimedAction } from "./runStore.js"

/** The agent acting for itself: its own tenant and agent only (an agent's credential), no key behind it. */
const agentCaller = (stored: StoredAgent, action: ClaimedAction): CallerInfo => ({
  keyId: `agent-runtime:${stored.agent.id}`,
  tenant: stored.tenantId,
  readTenant: stored.tenantId,
  scopes: new Set(["agents", "transactions"]),
  traceId: `agent-${action.id}`,
  agentId: stored.agent.id
})

const describe = (error: unknown): string => {
  if (typeof error === "object" && error !== null && "message" in error && typeof error.message === "string") {
    const code = "errorCode" in error && typeof error.errorCode === "string" ? `${error.errorCode}: ` : ""
    return `${code}${error.message}`
  }
  return String(error)
}

export class ActionRunner extends Effect.Service<ActionRunner>()("ActionRunner", {
  dependencies: [AgentExecution.Default, Strategy.Default],
  effect: Effect.gen(function* () {
    const strategy = yield* Strategy
    const execution = yield* AgentExecution

    const perform = (stored: StoredAgent, action: ClaimedAction): Effect.Effect<ActionOutcome> => {
      const order = { type: action.type, protocol: action.protocol, intent: action.intent }
      const caller = agentCaller(stored, action)
      if (action.kind === "paper") {
        // Re-sent after a crash, the action finds the paper trade it recorded (the run's key).
        return strategy.recordPaperTrade(stored, order, { traceId: caller.traceId, onceKey: `run:${action.idempotencyKey}` }).pipe(
          Effect.map((trade): ActionOutcome => ({ status: "paper", paperTradeId: trade.id })),
          Effect.catchAll((error) => Effect.succeed<ActionOutcome>({ status: "failed", error: describe(error) }))
        )
      }
      return execution
        .execute(caller, stored.agent.id, { order: { ...order, gasless: action.gasless, idempotencyKey: action.idempotencyKey }, manifest: undefined })
        .pipe(
          Effect.map((created): ActionOutcome => ({ status: "submitted", txId: created.row.id })),
          Effect.catchAll((error) => Effect.succeed<ActionOutcome>({ status: "failed", error: describe(error) }))
        )
    }

    return { perform }
  })
}) {}
