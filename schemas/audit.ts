/** Audit events and metrics (spec: Events, Health and operations; [n6] in docs/decisions/schemas.md). */
import * as Schema from "effect/Schema"
import { PageCursor, PageFields, Timestamp, Uuid } from "./common.js"

const boundedText = (max: number) =>
  Schema.String.pipe(
    Schema.minLength(1, { message: () => `must be 1-${max} characters` }),
    Schema.maxLength(max, { message: () => `must be 1-${max} characters` })
  )

const JsonObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  message: () => ({ message: "must be a JSON object", override: true })
})

/**
 * The namespaces of the service's own events (`transaction.confirmed`, `agent.paused`, `policy.evaluated`...).
 * A custom event may not take a name in them (case aside): it would count in the deployment-wide
 * `audit_event.<name>` counters, reach webhook subscribers and filters as if the service had said it.
 */
export const BUILT_IN_EVENT_NAMESPACES = [
  "transaction", "policy", "wallet", "agent", "strategy", "rpc", "escrow", "treasury", "approval", "webhook",
  "gasless", "x402", "chaos", "risk", "api_key", "audit_event"
] as const

/** The built-in namespace a name falls in (`transaction` for `Transaction.Confirmed`), if any. */
export const builtInNamespaceOf = (eventType: string): string | undefined => {
  const name = eventType.trim().toLowerCase()
  return BUILT_IN_EVENT_NAMESPACES.find((namespace) => name === namespace || name.startsWith(`${namespace}.`))
}

const CustomEventType = boundedText(128).pipe(
  Schema.filter((eventType) => {
    const namespace = builtInNamespaceOf(eventType)
    return namespace === undefined
      ? true
      : `'${eventType}' is a built-in event name (namespace '${namespace}.'); custom events use a name of their own, such as 'custom.${eventType.trim()}'`
  })
)

export const PostAuditEventBody = Schema.Struct({
  eventType: CustomEventType,
  message: Schema.String.pipe(Schema.maxLength(4096, { message: () => "must be at most 4096 characters" })),
  metadata: Schema.optionalWith(JsonObject, { exact: true, default: () => ({}) })
})
export type PostAuditEventBody = typeof PostAuditEventBody.Type

export const AuditEvent = Schema.Struct({
  id: Uuid,
  eventType: Schema.String,
  message: Schema.String,
  metadata: JsonObject,
  tenantId: Schema.String,
  txId: Schema.optional(Schema.String),
  walletId: Schema.optional(Schema.String),
  agentId: Schema.optional(Schema.String),
  protocol: Schema.optional(Schema.String),
  escrowId: Schema.optional(Schema.String),
  entityType: Schema.optional(Schema.String),
  category: Schema.optional(Schema.String),
  traceId: Schema.optional(Schema.String),
  createdAt: Timestamp
})
export type AuditEvent = typeof AuditEvent.Type

export const AuditEventList = Schema.Struct({
  events: Schema.Array(AuditEvent),
  ...PageFields
})

const IntFromQuery = Schema.NumberFromString.pipe(Schema.int({ message: () => "must be an integer" }))
const Filter = Schema.optionalWith(boundedText(128), { exact: true })

export const MAX_AUDIT_PAGE = 1000

/** Query of `GET /audit/events` (query strings): newest first, 100 per page by default. */
export const AuditQuery = Schema.Struct({
  txId: Filter,
  agentId: Filter,
  walletId: Filter,
  protocol: Filter,
  escrowId: Filter,
  entityType: Filter,
  category: Filter,
  eventType: Filter,
  limit: Schema.optionalWith(
    IntFromQuery.pipe(Schema.between(1, MAX_AUDIT_PAGE, { message: () => `must be between 1 and ${MAX_AUDIT_PAGE}` })),
    { exact: true, default: () => 100 }
  ),
  offset: Schema.optionalWith(IntFromQuery.pipe(Schema.nonNegative({ message: () => "must not be negative" })), {
    exact: true,
    default: () => 0
  }),
  cursor: Schema.optionalWith(PageCursor, { exact: true })
})
export type AuditQuery = typeof AuditQuery.Type

/** Counter names: dotted words, as `audit_event.transaction.created`. */
export const MetricName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_.:-]{1,128}$/, { message: () => "must be 1-128 characters of letters, digits, _ . : -" })
)

/** Counters only go up by whole numbers. */
export const MetricsIncBody = Schema.Struct({
  name: MetricName,
  value: Schema.optionalWith(
    Schema.Number.pipe(
      Schema.int({ message: () => "must be an integer" }),
      Schema.between(1, Number.MAX_SAFE_INTEGER, { message: () => "must be a positive integer" })
    ),
    { exact: true, default: () => 1 }
  )
})
export type MetricsIncBody = typeof MetricsIncBody.Type

export const Metrics = Schema.Record({ key: Schema.String, value: Schema.Number })
export type Metrics = typeof Metrics.Type
