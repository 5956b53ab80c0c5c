/**
 * Webhook subscriptions (issue 19, [n21]): scope `webhooks`, operator keys (an agent's key is refused),
 * each subscription in the caller's tenant. The secret is in the answer of create and rotate only.
 */
import { Effect } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import { InvalidState, NotFound, ValidationError } from "../../schemas/errors.js"
import { ListeningPorts } from "../gateway/listeningPorts.js"
import { CreateWebhookBody, DeliveriesQuery } from "../../schemas/webhook.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { WebhooksApi } from "../../schemas/api/webhooks.js"
import { selfTargetRefusal } from "./selfTarget.js"
import { WebhookRepo } from "./webhookRepo.js"

const webhookId = pathParam("webhookId", Uuid)
const deliveryId = pathParam("deliveryId", Uuid)
const notFound = (id: string) => Effect.fail(new NotFound({ resource: "webhook", id }))

export const webhookRoutes = [
  route(
    WebhooksApi.create,
    Effect.gen(function* () {
      const body = yield* decodeBody(CreateWebhookBody)
      const ports = yield* ListeningPorts
      const selfTarget = yield* Effect.promise(() => selfTargetRefusal(body.url, ports.isOurPort))
      if (selfTarget !== undefined) return yield* Effect.fail(new ValidationError({ message: selfTarget, field: "url" }))
      // A create repeated with its idempotency key answers the subscription it made: 200, not a second 201.
      const { webhook, created } = yield* (yield* WebhookRepo).create(yield* Caller, body)
      return ok(webhook, created ? 201 : 200)
    })
  ),
  route(
    WebhooksApi.list,
    Effect.gen(function* () {
      const page = yield* decodeQuery(PaginationQuery)
      return ok(yield* (yield* WebhookRepo).list(yield* Caller, page))
    })
  ),
  route(
    WebhooksApi.get,
    Effect.gen(function* () {
      const id = yield* webhookId
      const found = yield* (yield* WebhookRepo).find(yield* Caller, id)
      return found === undefined ? yield* notFound(id) : ok(found)
    })
  ),
  route(
    WebhooksApi.delete,
    Effect.gen(function* () {
      const id = yield* webhookId
      const removed = yield* (yield* WebhookRepo).remove(yield* Caller, id)
      return removed ? ok({ id, deleted: true }) : yield* notFound(id)
    })
  ),
  route(
    WebhooksApi.rotateSecret,
    Effect.gen(function* () {
      const id = yield* webhookId
      const rotated = yield* (yield* WebhookRepo).rotateSecret(yield* Caller, id)
      return rotated === undefined ? yield* notFound(id) : ok(rotated)
    })
  ),
  route(
    WebhooksApi.deliveries,
    Effect.gen(function* () {
      const id = yield* webhookId
      const query = yield* decodeQuery(DeliveriesQuery)
      const page = yield* (yield* WebhookRepo).deliveries(yield* Caller, id, query)
      return page === undefined ? yield* notFound(id) : ok(page)
    })
  ),
  route(
    WebhooksApi.redeliver,
    Effect.gen(function* () {
      const id = yield* webhookId
      const delivery = yield* deliveryId
      const outcome = yield* (yield* WebhookRepo).redeliver(yield* Caller, id, delivery)
      if (outcome === "NoSubscription") return yield* notFound(id)
      if (outcome === "NotDead") {
        return yield* Effect.fail(new InvalidState({ message: `delivery ${delivery}: only a dead delivery can be redelivered`, currentState: "not dead" }))
      }
      return ok({ id: delivery, status: "pending" }, 202)
    })
  )
]
