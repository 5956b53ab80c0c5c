/**
 * The audit log and metric counters, durable in SQL. Recording an event also increments the counter
 * `audit_event.<eventType>` (spec: Events rule 1). Metadata is stored as given (text made storable,
 * storableText.ts): callers never put keys or secrets in it. `record` writes now (in the caller's SQL
 * transaction, if any); `recordSoon` queues the event for a batched insert within 50 ms (auditBatch.ts),
 * for events nothing else is atomic with.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { newRowId } from "../db/rowIds.js"
import { makeAuditBatch } from "./auditBatch.js"
import { MetricCounters } from "./metricCounters.js"
import { storableJson, storableOrNull, storableText } from "./storableText.js"

export interface AuditEventInput {
  readonly tenantId: string
  readonly eventType: string
  readonly message: string
  readonly metadata?: Record<string, unknown>
  readonly txId?: string | null
  readonly walletId?: string | null
  readonly agentId?: string | null
  readonly protocol?: string | null
  readonly escrowId?: string | null
  readonly entityType?: string | null
  readonly category?: string | null
  readonly traceId?: string | null
}


export class AuditLog extends Effect.Service<AuditLog>()("AuditLog", {
  dependencies: [MetricCounters.Default],
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const counters = yield* MetricCounters
    const increment = counters.increment
    const batch = yield* makeAuditBatch(increment)

    const record = (event: AuditEventInput) =>
      Effect.gen(function* () {
        const id = newRowId()
        yield* sql`
          INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id,
            protocol, escrow_id, entity_type, category, trace_id)
          VALUES (${id}, ${storableText(event.tenantId)}, ${storableText(event.eventType)}, ${storableText(event.message)},
            ${storableJson(event.metadata)}::jsonb, ${event.txId ?? null}, ${event.walletId ?? null}, ${event.agentId ?? null},
            ${storableOrNull(event.protocol)}, ${storableOrNull(event.escrowId)}, ${storableOrNull(event.entityType)},
            ${storableOrNull(event.category)}, ${storableOrNull(event.traceId)})
        `
        yield* increment(`audit_event.${storableText(event.eventType)}`)
        return id
      }).pipe(Effect.orDie, Effect.withSpan("AuditLog.record"))

    return { record, recordSoon: batch.recordSoon, flushQueued: batch.flush, increment }
  })
}) {}
