/** Audit and metrics routes (spec: Health and operations, Events). */
import { Effect, Schema } from "effect"
import { AuditQuery, MetricsIncBody, PostAuditEventBody } from "../../schemas/audit.js"
import { Uuid } from "../../schemas/common.js"
import type { AuditEventInput } from "./auditLog.js"
import { AuditEvents } from "./auditEvents.js"
import { AuditLog } from "./auditLog.js"
import { MetricCounters } from "./metricCounters.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { AuditApi } from "../../schemas/api/audit.js"

const isUuid = Schema.is(Uuid)
const text = (value: unknown) => (typeof value === "string" && value.length > 0 && value.length <= 128 ? value : null)
const uuid = (value: unknown) => (typeof value === "string" && isUuid(value) ? value : null)

/**
 * A posted event is findable by the same filters as built-in ones: correlation fields found in its
 * metadata (txId, walletId, agentId as UUIDs; protocol, escrowId, entityType, category as text) are
 * copied to their columns; anything else stays in metadata only. Category defaults to `custom`.
 */
const correlationOf = (metadata: Readonly<Record<string, unknown>>) => ({
  txId: uuid(metadata.txId),
  walletId: uuid(metadata.walletId),
  agentId: uuid(metadata.agentId),
  protocol: text(metadata.protocol),
  escrowId: text(metadata.escrowId),
  entityType: text(metadata.entityType),
  category: text(metadata.category) ?? "custom"
})

/** Counters sorted by name; bigint values leave as JSON integers through the envelope. */
const metricsObject = (totals: ReadonlyMap<string, bigint>) =>
  Object.fromEntries([...totals].sort(([a], [b]) => a.localeCompare(b)))

export const auditRoutes = [
  route(
    AuditApi.post,
    Effect.gen(function* () {
      const body = yield* decodeBody(PostAuditEventBody)
      const caller = yield* Caller
      const event: AuditEventInput = {
        tenantId: caller.tenant,
        eventType: body.eventType,
        message: body.message,
        metadata: body.metadata,
        traceId: caller.traceId,
        ...correlationOf(body.metadata)
      }
      const id = yield* (yield* AuditLog).record(event)
      const stored = yield* (yield* AuditEvents).get(caller, id)
      return ok(stored, 201)
    })
  ),
  route(
    AuditApi.list,
    Effect.gen(function* () {
      const query = yield* decodeQuery(AuditQuery)
      return ok(yield* (yield* AuditEvents).list(yield* Caller, query))
    })
  ),
  route(
    AuditApi.metrics,
    Effect.gen(function* () {
      return ok(metricsObject(yield* (yield* MetricCounters).snapshot))
    }),
    "deployment"
  ),
  route(
    AuditApi.incrementMetric,
    Effect.gen(function* () {
      const body = yield* decodeBody(MetricsIncBody)
      const counters = yield* MetricCounters
      yield* counters.increment(body.name, body.value)
      const totals = yield* counters.snapshot
      return ok({ name: body.name, value: totals.get(body.name) ?? 0n })
    }),
    "deployment"
  )
]
