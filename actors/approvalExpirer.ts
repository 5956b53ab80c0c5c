/**
 * The approval expirer ([n8]): a transaction waiting at the approval gate longer than 24 hours fails
 * with POLICY_VIOLATION ("approval expired"), never signs. It runs every minute in every process; the
 * transition's status check makes concurrent expirers harmless.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { MetricCounters } from "../src/audit/metricCounters.js"
import { txStageMetric, TX_FAILED } from "../src/audit/metricNames.js"
import { stageEventOf, StageEvents } from "../src/pipeline/stageEvents.js"
import { TransactionRepo } from "../src/pipeline/transactionRepo.js"
import { superviseActor } from "./supervise.js"

export const expireApprovals = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const repo = yield* TransactionRepo
  const events = yield* StageEvents
  const metrics = yield* MetricCounters
  const due = yield* sql<{ id: string; approval: Record<string, unknown> }>`
    SELECT id, approval FROM transactions
    WHERE approval IS NOT NULL AND approval->>'expiresAt' <= ${new Date().toISOString()} AND status = 'approval_gate'
    LIMIT 500
  `.pipe(Effect.orDie)
  for (const row of due) {
    const moved = yield* repo.transition(row.id, {
      from: ["approval_gate"], to: "failed", stage: "policy", message: "approval expired after 24 hours",
      fields: {
        failedAt: "policy", errorCode: "POLICY_VIOLATION", error: "approval expired: no decision within 24 hours",
        approval: { ...row.approval, status: "expired", decidedAt: new Date().toISOString() }
      },
      eventType: "transaction.failed"
    })
    if (moved === undefined) continue
    yield* metrics.increment(TX_FAILED)
    yield* metrics.increment(txStageMetric("failed"))
    yield* events.publish(stageEventOf(moved, "approval expired"))
  }
  return due.length
})

export const ApprovalExpirerLive = Layer.scopedDiscard(
  superviseActor(
    "approval-expirer",
    (actor) =>
      Effect.repeat(
        Effect.gen(function* () {
          yield* actor.setStatus("running")
          const expired = yield* expireApprovals
          yield* actor.setQueueDepth(expired)
          yield* actor.setStatus("idle")
        }),
        Schedule.spaced("1 minute")
      ).pipe(Effect.asVoid),
    { kind: "approval-expirer" }
  )
)
