/** Webhook subscription endpoints (issue 19, [n21]; docs/decisions/webhooks.md). */
import * as Schema from "effect/Schema"
import { Page, PaginationQuery, Timestamp, Uuid } from "../common.js"
import { CreateWebhookBody, DeliveriesQuery, DELIVERY_STATUSES, Webhook } from "../webhook.js"
import { endpoint } from "./endpoint.js"

export const WebhookIdParams = Schema.Struct({ webhookId: Uuid })
export const DeliveryIdParams = Schema.Struct({ webhookId: Uuid, deliveryId: Uuid })

const WebhookResource = Webhook.annotations({ identifier: "Webhook" })

/** Create and rotate answer the signing secret, once. */
export const WebhookWithSecret = Schema.Struct({ ...Webhook.fields, secret: Schema.String }).annotations({ identifier: "WebhookWithSecret" })

export const WebhookDelivery = Schema.Struct({
  id: Uuid,
  eventType: Schema.String,
  auditEventId: Uuid,
  status: Schema.Literal(...DELIVERY_STATUSES),
  attempts: Schema.Int,
  nextAttemptAt: Schema.NullOr(Timestamp),
  lastError: Schema.NullOr(Schema.String),
  lastStatusCode: Schema.NullOr(Schema.Int),
  deliveredAt: Schema.NullOr(Timestamp),
  createdAt: Timestamp,
  payload: Schema.Unknown
}).annotations({ identifier: "WebhookDelivery" })

export const WebhooksApi = {
  create: endpoint("webhooks", "POST", "/api/v1/webhooks", {
    summary: "Subscribe a URL to event types (the answer shows the signing secret; 200 for a create repeated with its idempotencyKey)",
    body: CreateWebhookBody,
    success: WebhookWithSecret,
    successStatuses: [201, 200]
  }),
  list: endpoint("webhooks", "GET", "/api/v1/webhooks", { summary: "The tenant's subscriptions", query: PaginationQuery, success: Page("webhooks", WebhookResource) }),
  get: endpoint("webhooks", "GET", "/api/v1/webhooks/:webhookId", { summary: "A subscription", params: WebhookIdParams, success: WebhookResource }),
  delete: endpoint("webhooks", "DELETE", "/api/v1/webhooks/:webhookId", {
    summary: "Delete a subscription",
    params: WebhookIdParams,
    success: Schema.Struct({ id: Uuid, deleted: Schema.Literal(true) })
  }),
  rotateSecret: endpoint("webhooks", "POST", "/api/v1/webhooks/:webhookId/rotate-secret", {
    summary: "Replace the signing secret (the answer shows the new one once)",
    params: WebhookIdParams,
    success: WebhookWithSecret
  }),
  deliveries: endpoint("webhooks", "GET", "/api/v1/webhooks/:webhookId/deliveries", {
    summary: "A subscription's deliveries, dead ones included",
    params: WebhookIdParams,
    query: DeliveriesQuery,
    success: Page("deliveries", WebhookDelivery)
  }),
  redeliver: endpoint("webhooks", "POST", "/api/v1/webhooks/:webhookId/deliveries/:deliveryId/redeliver", {
    summary: "Queue a dead delivery again",
    params: DeliveryIdParams,
    success: Schema.Struct({ id: Uuid, status: Schema.Literal("pending") }),
    successStatuses: [202]
  })
}
