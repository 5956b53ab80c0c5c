/**
 * Audit events that may be written a moment late (what-if evaluations): queued in memory and inserted
 * with ONE multi-row INSERT every 50 ms, when the queue reaches MAX_QUEUED (the caller then waits for
 * that insert, so memory stays bounded under load) and on shutdown. A kill -9 can lose at most the
 * queued window. Each event keeps the time it was queued as its created_at, and the counter
 * `audit_event.<eventType>` grows once its row is written. Events that must be atomic with other writes
 * (transaction decisions) never come here: they use AuditLog.record inside their SQL transaction.
 *
 * A bad row never blocks the others (issue 11 item 9): when an insert fails because of its rows
 * (rowFault.ts), each row is tried alone and only a row that fails alone is dropped, counted in
 * `audit_event_dropped_total` and logged (its type and SQLSTATE, never its content). Any other
 * failure (the database is away) keeps the batch queued, in order, for the next tick.
 */
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Schedule, type Scope } from "effect"
import { newRowId } from "../db/rowIds.js"
import { isRowFault, sqlStateOf } from "../db/rowFault.js"
import type { AuditEventInput } from "./auditLog.js"
import { AUDIT_EVENT_DROPPED_TOTAL } from "./metricNames.js"
import { storableJson } from "./storableText.js"

export const FLUSH_INTERVAL = "50 millis"
export const MAX_QUEUED = 1_000
export const DROPPED_METRIC = AUDIT_EVENT_DROPPED_TOTAL
/** Attempts of the final flush at shutdown when the database does not answer. */
const SHUTDOWN_ATTEMPTS = 5

interface QueuedEvent {
  readonly id: string
  readonly tenant_id: string
  readonly event_type: string
  readonly message: string
  readonly metadata: Record<string, unknown>
  readonly tx_id: string | null
  readonly wallet_id: string | null
  readonly agent_id: string | null
  readonly protocol: string | null
  readonly escrow_id: string | null
  readonly entity_type: string | null
  readonly category: string | null
  readonly trace_id: string | null
  readonly created_at: string
}

const toQueued = (event: AuditEventInput): QueuedEvent => ({
  id: newRowId(),
  tenant_id: event.tenantId,
  event_type: event.eventType,
  message: event.message,
  metadata: event.metadata ?? {},
  tx_id: event.txId ?? null,
  wallet_id: event.walletId ?? null,
  agent_id: event.agentId ?? null,
  protocol: event.protocol ?? null,
  escrow_id: event.escrowId ?? null,
  entity_type: event.entityType ?? null,
  category: event.category ?? null,
  trace_id: event.traceId ?? null,
  created_at: new Date().toISOString()
})

/** The batcher; its flush loop lives in the scope, and closing the scope writes what is queued. */
export const makeAuditBatch = (
  increment: (name: string, by?: number) => Effect.Effect<void>
): Effect.Effect<{ readonly recordSoon: (event: AuditEventInput) => Effect.Effect<string>; readonly flush: Effect.Effect<void> }, never, SqlClient.SqlClient | Scope.Scope> =>
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let queued: Array<QueuedEvent> = []
    // One insert at a time: the loop, a full queue and shutdown never write the same batch twice.
    const lock = yield* Effect.makeSemaphore(1)

    const insertRows = (batch: ReadonlyArray<QueuedEvent>) =>
      Effect.gen(function* () {
        yield* sql`
          INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id,
            protocol, escrow_id, entity_type, category, trace_id, created_at)
          SELECT id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id,
            protocol, escrow_id, entity_type, category, trace_id, created_at
          FROM jsonb_to_recordset(${storableJson(batch)}::jsonb) AS e(id uuid, tenant_id text, event_type text,
            message text, metadata jsonb, tx_id uuid, wallet_id uuid, agent_id uuid, protocol text, escrow_id text,
            entity_type text, category text, trace_id text, created_at timestamptz)
        `
        const perType = new Map<string, number>()
        for (const event of batch) perType.set(event.event_type, (perType.get(event.event_type) ?? 0) + 1)
        for (const [eventType, n] of perType) yield* increment(`audit_event.${eventType}`, n)
      })

    const drop = (event: QueuedEvent, cause: Cause.Cause<unknown>) =>
      increment(DROPPED_METRIC).pipe(
        Effect.zipRight(
          Effect.logError("audit event dropped: the database refused its row", {
            eventId: event.id,
            eventType: event.event_type.slice(0, 128),
            tenantId: event.tenant_id.slice(0, 128),
            sqlState: sqlStateOf(cause)
          })
        )
      )

    /** Inserts the batch; answers the events still to write (a failure not caused by the rows). */
    const insert = (batch: ReadonlyArray<QueuedEvent>): Effect.Effect<ReadonlyArray<QueuedEvent>> =>
      insertRows(batch).pipe(
        Effect.as([] as ReadonlyArray<QueuedEvent>),
        Effect.catchAllCause((cause) => {
          if (!isRowFault(cause)) {
            return Effect.logWarning("audit batch insert failed; will retry", Cause.pretty(cause)).pipe(Effect.as(batch))
          }
          if (batch.length === 1) return drop(batch[0], cause).pipe(Effect.as([] as ReadonlyArray<QueuedEvent>))
          return Effect.forEach(batch, (event) => insert([event])).pipe(Effect.map((left) => left.flat()))
        })
      )

    const flush = lock.withPermits(1)(
      Effect.suspend(() => {
        if (queued.length === 0) return Effect.void
        const batch = queued
        queued = []
        // What could not be written goes back in front (it stays in order) for the next tick.
        return insert(batch).pipe(
          Effect.flatMap((left) =>
            Effect.sync(() => {
              if (left.length > 0) queued = left.concat(queued)
            })
          )
        )
      })
    )

    /** At shutdown: a few attempts, then the loss is logged (counted by no metric: those stop too). */
    const finalFlush = Effect.gen(function* () {
      for (let attempt = 1; attempt <= SHUTDOWN_ATTEMPTS && queued.length > 0; attempt++) {
        if (attempt > 1) yield* Effect.sleep("100 millis")
        yield* flush
      }
      if (queued.length > 0) yield* Effect.logError("audit events lost at shutdown: the database did not take them", { count: queued.length })
    })

    const recordSoon = (event: AuditEventInput) =>
      Effect.suspend(() => {
        const queuedEvent = toQueued(event)
        queued.push(queuedEvent)
        return (queued.length >= MAX_QUEUED ? flush : Effect.void).pipe(Effect.as(queuedEvent.id))
      })

    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced(FLUSH_INTERVAL)))
    yield* Effect.addFinalizer(() => finalFlush)
    return { recordSoon, flush }
  })
