/**
 * A freeze's effect on transactions waiting at the approval gate (docs/decisions/freeze.md): each one of
 * the frozen tenant, wallet or agent fails at once, naming the freeze, its approval marked rejected by
 * the freeze, and its spend reserved at the gate given back (in one SQL transaction per transaction, as a
 * reject). Transactions further along or still queued fail at their signing stage, where the signer
 * refuses them under the freeze lock.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { freezeNotice, type Freeze } from "../../schemas/freeze.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { auditEventMetric, TX_FAILED } from "../audit/metricNames.js"
import { PolicyEngine } from "../policy/policyEngine.js"
import { StageEvents, transitionEventOf } from "./stageEvents.js"
import { TransactionRepo } from "./transactionRepo.js"
import { decodeRows, JsonObject } from "../db/rowDecoding.js"

/** A transaction waiting at the approval gate, with its approval. */
const WaitingRow = Schema.Struct({ id: Schema.String, approval: Schema.NullOr(JsonObject) })

export class FrozenGate extends Effect.Service<FrozenGate>()("FrozenGate", {
  dependencies: [TransactionRepo.Default, PolicyEngine.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* TransactionRepo
    const policy = yield* PolicyEngine
    const metrics = yield* MetricCounters
    const events = yield* StageEvents

    const waitingInScope = (freeze: Freeze) =>
      sql`
        SELECT id, approval FROM transactions
        WHERE tenant_id = ${freeze.tenantId} AND status = 'approval_gate'
          ${freeze.scope === "wallet" ? sql`AND wallet_id::text = ${freeze.targetId}` : freeze.scope === "agent" ? sql`AND agent_id::text = ${freeze.targetId}` : sql``}
        ORDER BY created_at
      `.pipe(decodeRows("transactions", WaitingRow))

    /** Fails every transaction of the freeze's scope waiting at the gate; answers their ids. */
    const failWaiting = (freeze: Freeze) =>
      Effect.gen(function* () {
        const notice = freezeNotice(freeze)
        const failed: Array<string> = []
        for (const waiting of yield* waitingInScope(freeze)) {
          const approval = { ...waiting.approval, status: "rejected", decidedAt: new Date().toISOString(), decidedBy: `freeze ${freeze.id}`, reason: notice }
          const moved = yield* sql.withTransaction(
            Effect.gen(function* () {
              const updated = yield* repo.transition(waiting.id, {
                from: ["approval_gate"], to: "failed", stage: "policy", message: notice,
                fields: { approval, failedAt: "policy", errorCode: "POLICY_VIOLATION", error: notice },
                eventType: "transaction.failed"
              })
              if (updated !== undefined) yield* policy.releaseSpend(waiting.id)
              return updated
            })
          )
          if (moved === undefined) continue
          yield* metrics.increment(TX_FAILED)
          yield* metrics.increment(auditEventMetric("transaction.failed"))
          yield* events.publish(transitionEventOf(moved, "failed: frozen"))
          failed.push(moved.id)
        }
        return failed
      }).pipe(Effect.orDie, Effect.withSpan("FrozenGate.failWaiting"))

    return { failWaiting }
  })
}) {}
