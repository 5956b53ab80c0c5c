/**
 * The stage stream's source: every transaction status transition is published here (after it is
 * written to SQL) for the WebSocket stream. A sliding buffer per subscriber means a slow subscriber
 * loses its oldest messages instead of ever blocking the pipeline.
 */
import { Effect, PubSub, Queue, Scope } from "effect"
import type { TransactionRow } from "./transactionRow.js"

export interface StageEvent {
  readonly type: "stage"
  readonly txId: string
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly status: string
  readonly stage: string
  readonly at: string
  readonly message?: string
  readonly signature?: string
  readonly failedAt?: string
  readonly errorCode?: string
}

/** The stage-stream message of a transaction row as it was just written. */
export const stageEventOf = (row: TransactionRow, message?: string, at: string = new Date().toISOString()): StageEvent => ({
  type: "stage",
  txId: row.id,
  tenantId: row.tenant_id,
  walletId: row.wallet_id,
  agentId: row.agent_id,
  status: row.status,
  stage: row.stage,
  at,
  ...(message === undefined ? {} : { message }),
  ...(row.signature === null ? {} : { signature: row.signature }),
  ...(row.failed_at === null ? {} : { failedAt: row.failed_at }),
  ...(row.error_code === null ? {} : { errorCode: row.error_code })
})

export class StageEvents extends Effect.Service<StageEvents>()("StageEvents", {
  scoped: Effect.gen(function* () {
    const hub = yield* Effect.acquireRelease(PubSub.sliding<StageEvent>(4096), PubSub.shutdown)
    const publish = (event: StageEvent) => PubSub.publish(hub, event).pipe(Effect.asVoid)
    /** A queue of every event from now on; it closes with the given scope. */
    const subscribe: Effect.Effect<Queue.Dequeue<StageEvent>, never, Scope.Scope> = PubSub.subscribe(hub)
    return { publish, subscribe }
  })
}) {}
