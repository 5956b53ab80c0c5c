/**
 * Webhook subscriptions and deliveries (issue 19, spec note [n21]; docs/decisions/webhooks.md).
 * Event types are derived from audit events; the payload is Standard Webhooks' `{type, timestamp, data}`.
 */
import * as Schema from "effect/Schema"
import { IdempotencyKey, PaginationQuery, Timestamp, Uuid } from "./common.js"

/** What a subscription may ask for: transaction stages, approvals waiting, agent pauses, policy denials, freezes (the kill switch). */
export const WEBHOOK_EVENT_TYPES = [
  "transaction.created",
  "transaction.built",
  "transaction.simulated",
  "transaction.policy_evaluated",
  "transaction.approved",
  "transaction.signed",
  "transaction.submitted",
  "transaction.confirmed",
  "transaction.failed",
  "approval.waiting",
  "agent.paused",
  "policy.denied",
  "freeze.applied",
  "freeze.lifted"
] as const
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number]

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value)
    return (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== ""
  } catch {
    return false
  }
}

const hasCredentials = (value: string) => {
  try {
    const url = new URL(value)
    return url.username !== "" || url.password !== ""
  } catch {
    return false
  }
}

export const WebhookUrl = Schema.String.pipe(
  Schema.maxLength(2048, { message: () => "must be at most 2048 characters" }),
  Schema.filter(isHttpUrl, { message: () => "must be an http(s) URL" }),
  Schema.filter((value) => !hasCredentials(value), { message: () => "must not carry a user name or password (sign with the secret instead)" })
)

export const WebhookEventTypeSchema = Schema.Literal(...WEBHOOK_EVENT_TYPES).annotations({
  message: () => ({ message: `must be one of ${WEBHOOK_EVENT_TYPES.join(", ")}`, override: true })
})

export const CreateWebhookBody = Schema.Struct({
  url: WebhookUrl,
  eventTypes: Schema.Array(WebhookEventTypeSchema).pipe(
    Schema.minItems(1, { message: () => "must name at least one event type" }),
    Schema.maxItems(WEBHOOK_EVENT_TYPES.length, { message: () => `must name at most ${WEBHOOK_EVENT_TYPES.length} event types` })
  ),
  description: Schema.optionalWith(
    Schema.String.pipe(Schema.maxLength(256, { message: () => "must be at most 256 characters" })),
    { exact: true }
  ),
  /** A create sent again with the same key (after a lost answer) answers the subscription it made, with its secret. */
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
})
export type CreateWebhookBody = typeof CreateWebhookBody.Type

/** A subscription as listed: never its secret (that is shown once, at create and at rotate). */
export const Webhook = Schema.Struct({
  id: Uuid,
  tenantId: Schema.String,
  url: Schema.String,
  eventTypes: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  createdAt: Timestamp,
  secretRotatedAt: Schema.NullOr(Timestamp)
})
export type Webhook = typeof Webhook.Type

export const DELIVERY_STATUSES = ["pending", "processing", "delivered", "dead"] as const

export const DeliveriesQuery = Schema.Struct({
  ...PaginationQuery.fields,
  status: Schema.optionalWith(
    Schema.Literal(...DELIVERY_STATUSES).annotations({
      message: () => ({ message: `must be one of ${DELIVERY_STATUSES.join(", ")}`, override: true })
    }),
    { exact: true }
  )
})
export type DeliveriesQuery = typeof DeliveriesQuery.Type
