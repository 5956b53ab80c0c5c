/**
 * The read side of the audit log: events of the caller's tenant, filtered by any of the spec's fields
 * (plus eventType), newest first (highest `seq`), paged with limit/offset or a cursor ([n6], [n28]).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { AuditEvent, AuditQuery } from "../../schemas/audit.js"
import { Uuid } from "../../schemas/common.js"
import { ValidationError } from "../../schemas/errors.js"
import { makeKeyset, withPageKey } from "../db/keysetPage.js"
import { decodeRows, JsonObject, Timestamp } from "../db/rowDecoding.js"
import { canSee, type CallerInfo } from "../gateway/caller.js"

const AuditRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  event_type: Schema.String,
  message: Schema.String,
  metadata: Schema.Union(Schema.String, JsonObject),
  tx_id: Schema.NullOr(Schema.String),
  wallet_id: Schema.NullOr(Schema.String),
  agent_id: Schema.NullOr(Schema.String),
  protocol: Schema.NullOr(Schema.String),
  escrow_id: Schema.NullOr(Schema.String),
  entity_type: Schema.NullOr(Schema.String),
  category: Schema.NullOr(Schema.String),
  trace_id: Schema.NullOr(Schema.String),
  created_at: Timestamp
})
type AuditRow = typeof AuditRow.Type
const AuditPageRow = withPageKey(AuditRow)

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
  createdAt: row.created_at.toISOString()
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
        const rows = yield* sql`
          SELECT *, ${newestFirst.keyColumn} FROM audit_events WHERE ${where}
          ORDER BY ${newestFirst.orderBy} LIMIT ${query.limit + 1} OFFSET ${query.offset}
        `.pipe(decodeRows("audit_events", AuditPageRow), Effect.orDie)
        const counted = yield* newestFirst.cappedTotal(sql`audit_events`, conditions).pipe(Effect.orDie)
        const { items, info } = newestFirst.pageOf(rows, query, counted)
        return { events: items.map(toEvent), ...info }
      }).pipe(Effect.withSpan("AuditEvents.list"))

    /** One event by id, if the caller may see it. */
    const get = (caller: CallerInfo, id: string) =>
      sql`SELECT * FROM audit_events WHERE id = ${id}`.pipe(
        decodeRows("audit_events", AuditRow),
        Effect.orDie,
        Effect.map((rows) => rows.map(toEvent).find((event) => canSee(caller, event.tenantId)))
      )

    return { list, get }
  })
}) {}
