/**
 * The read side of the audit log: events of the caller's tenant, filtered by any of the spec's fields
 * (plus eventType), newest first (highest `seq`), paged with limit/offset or a cursor ([n6], [n28]).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { AuditEvent, AuditQuery } from "../../schemas/audit.js"
import { Uuid } from "../../schemas/common.js"
import { ValidationError } from "../../schemas/errors.js"
import { makeKeyset } from "../db/keysetPage.js"
import { canSee, type CallerInfo } from "../gateway/caller.js"

interface AuditRow {
  readonly id: string
  readonly tenant_id: string
  readonly event_type: string
  readonly message: string
  readonly metadata: string | Record<string, unknown>
  readonly tx_id: string | null
  readonly wallet_id: string | null
  readonly agent_id: string | null
  readonly protocol: string | null
  readonly escrow_id: string | null
  readonly entity_type: string | null
  readonly category: string | null
  readonly trace_id: string | null
  readonly created_at: Date | string
}

/** Filters whose columns are uuid: a non-UUID value is a 400 naming the field, not a database error. */
const UUID_FILTERS = ["txId", "walletId", "agentId"] as const
const isUuid = Schema.is(Uuid)

const optional = <K extends string>(key: K, value: string | null) => (value === null ? {} : ({ [key]: value } as Record<K, string>))

const toEvent = (row: AuditRow): AuditEvent => ({
  id: row.id,
  eventType: row.event_type,
  message: row.message,
  metadata: typeof row.metadata === "string" ? (JSON.parse(row.metadata) as Record<string, unknown>) : row.metadata,
  tenantId: row.tenant_id,
  ...optional("txId", row.tx_id),
  ...optional("walletId", row.wallet_id),
  ...optional("agentId", row.agent_id),
  ...optional("protocol", row.protocol),
  ...optional("escrowId", row.escrow_id),
  ...optional("entityType", row.entity_type),
  ...optional("category", row.category),
  ...optional("traceId", row.trace_id),
  createdAt: new Date(row.created_at).toISOString()
})

export class AuditEvents extends Effect.Service<AuditEvents>()("AuditEvents", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    // Newest first by the insertion sequence (not the clock: events of one millisecond keep their order).
    const newestFirst = makeKeyset(sql, [{ column: "seq", descending: true, type: "bigint" }])

    const list = (caller: CallerInfo, query: AuditQuery) =>
      Effect.gen(function* () {
        for (const field of UUID_FILTERS) {
          const value = query[field]
          if (value !== undefined && !isUuid(value)) return yield* Effect.fail(new ValidationError({ message: `${field}: must be a UUID`, field }))
        }
        const eq = (column: string, value: string | undefined) => (value === undefined ? [] : [sql`${sql(column)} = ${value}`])
        const conditions = [
          ...(caller.readTenant === null ? [] : [sql`tenant_id = ${caller.readTenant}`]),
          ...eq("tx_id", query.txId),
          ...eq("wallet_id", query.walletId),
          ...eq("agent_id", query.agentId),
          ...eq("protocol", query.protocol),
          ...eq("escrow_id", query.escrowId),
          ...eq("entity_type", query.entityType),
          ...eq("category", query.category),
          ...eq("event_type", query.eventType)
        ]
        const where = yield* newestFirst.where(conditions, query)
        const rows = yield* sql<AuditRow & { page_key: unknown }>`
          SELECT *, ${newestFirst.keyColumn} FROM audit_events WHERE ${where}
          ORDER BY ${newestFirst.orderBy} LIMIT ${query.limit + 1} OFFSET ${query.offset}
        `.pipe(Effect.orDie)
        const counted = yield* newestFirst.cappedTotal(sql`audit_events`, conditions).pipe(Effect.orDie)
        const { items, info } = newestFirst.pageOf(rows, query, counted)
        return { events: items.map(toEvent), ...info }
      }).pipe(Effect.withSpan("AuditEvents.list"))

    /** One event by id, if the caller may see it. */
    const get = (caller: CallerInfo, id: string) =>
      sql<AuditRow>`SELECT * FROM audit_events WHERE id = ${id}`.pipe(
        Effect.orDie,
        Effect.map((rows) => rows.map(toEvent).find((event) => canSee(caller, event.tenantId)))
      )

    return { list, get }
  })
}) {}
