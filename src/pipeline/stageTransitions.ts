/**
 * Writing a stage transition and announcing it: the SQL transition (status, history, audit event in
 * one statement), then the stage metric and the stage-stream message. `fail` also writes the failure
 * proof and gives back the daily spend of a transaction that never reached submission.
 */
import { Effect } from "effect"
import { auditEventMetric, txStageMetric, TX_FAILED } from "../audit/metricNames.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { PolicyEngine } from "../policy/policyEngine.js"
import { buildExecutionProof } from "./proof.js"
import type { Terminal } from "./stageFailure.js"
import { eventWithRow, stageEventOf, StageEvents, transitionEventOf } from "./stageEvents.js"
import { type PassedStage, TransactionRepo, type Transition, type TransitionFields } from "./transactionRepo.js"
import type { TransactionRow } from "./transactionRow.js"

/** Stages a run went through and the fields it learned, not written yet: they go out with its next transition. */
export interface Unwritten {
  readonly fields: TransitionFields
  readonly via: ReadonlyArray<PassedStage>
}

export class StageTransitions extends Effect.Service<StageTransitions>()("StageTransitions", {
  dependencies: [TransactionRepo.Default, PolicyEngine.Default],
  effect: Effect.gen(function* () {
    const repo = yield* TransactionRepo
    const policy = yield* PolicyEngine
    const events = yield* StageEvents
    const metrics = yield* MetricCounters

    /**
     * Applies a transition (in a statement shared with other workers') and announces it, and each stage
     * it passed through first; undefined when another worker moved the row first.
     */
    const move = (row: TransactionRow, change: Transition) =>
      Effect.gen(function* () {
        const moved = yield* repo.transitionShared(row.id, change)
        if (moved === undefined) return undefined
        for (const passed of change.via ?? []) {
          yield* metrics.increment(txStageMetric(passed.status))
          // The transition's statement wrote an audit event per stage: each counts (spec: Events rule 1).
          yield* metrics.increment(auditEventMetric(passed.eventType))
          yield* events.publish(stageEventOf({ ...moved, status: passed.status, stage: passed.stage }, passed.message, passed.at))
        }
        yield* metrics.increment(txStageMetric(moved.status))
        yield* metrics.increment(auditEventMetric(change.eventType))
        // (with its row: a request waiting for this transaction answers with it, transactionWaits.ts)
        yield* events.publish(eventWithRow(transitionEventOf(moved, change.message), moved))
        return moved
      })

    /**
     * Writes `failed` with a failure proof; gives back daily spend when nothing was submitted.
     * `recorded.unwritten`: what the run did but has not written yet, written with the failure.
     */
    const fail = (row: TransactionRow, failure: Terminal, recorded: { simulation?: unknown; policyDecision?: unknown; unwritten?: Unwritten } = {}) =>
      Effect.gen(function* () {
        const simulation = recorded.simulation ?? recorded.unwritten?.fields.simulation ?? row.simulation
        const policyDecision = recorded.policyDecision ?? row.policy_decision
        const proof = buildExecutionProof({
          txId: row.id, walletId: row.wallet_id, agentId: row.agent_id ?? undefined, intent: row.intent,
          policyDecision, simulation, signature: row.signature ?? undefined
        })
        const moved = yield* move(row, {
          from: [row.status], to: "failed", stage: failure.failedAt, message: failure.message,
          fields: { ...recorded.unwritten?.fields, failedAt: failure.failedAt, errorCode: failure.errorCode, error: failure.message, executionProof: proof, simulation, policyDecision },
          eventType: "transaction.failed", eventMetadata: { failedAt: failure.failedAt, errorCode: failure.errorCode, stage: failure.stage },
          ...(recorded.unwritten === undefined ? {} : { via: recorded.unwritten.via })
        })
        if (moved !== undefined) yield* metrics.increment(TX_FAILED)
        if (row.status !== "submitting") yield* policy.releaseSpend(row.id)
        return moved
      })

    return { move, fail }
  })
}) {}
