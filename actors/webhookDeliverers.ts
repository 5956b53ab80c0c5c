/**
 * Webhook deliverers: WEBHOOK_WORKERS supervised fibers per process, each taking one due delivery at a
 * time from the durable queue (lease + SKIP LOCKED), sending it signed, and recording the outcome:
 * delivered, pending again after an exponential backoff, or dead at WEBHOOK_MAX_ATTEMPTS (visible at
 * GET /api/v1/webhooks/<id>/deliveries?status=dead, and redeliverable). At least once: a deliverer that
 * dies mid-attempt leaves its lease to expire and another sends again (same webhook-id).
 */
import { Effect, Layer } from "effect"
import { webhookDeliveriesMetric } from "../src/audit/metricNames.js"
import { MetricCounters } from "../src/audit/metricCounters.js"
import { AppConfig } from "../src/config.js"
import { ListeningPorts } from "../src/gateway/listeningPorts.js"
import { WebhookDeliveryQueue } from "../src/webhooks/deliveryQueue.js"
import { attemptDelivery } from "../src/webhooks/webhookSender.js"
import { inBackground } from "./backgroundPriority.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

export const WebhookDeliverersLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const queue = yield* WebhookDeliveryQueue
    const metrics = yield* MetricCounters
    const ports = yield* ListeningPorts

    const deliverOne = Effect.gen(function* () {
      const delivery = yield* queue.claim
      if (delivery === undefined) return false
      const outcome = yield* Effect.promise(() => attemptDelivery(delivery, config.webhooks.timeoutMs, ports.isOurPort))
      if (outcome.ok) {
        yield* queue.delivered(delivery, outcome.statusCode)
        yield* metrics.increment(webhookDeliveriesMetric("delivered"))
        return true
      }
      const status = yield* queue.failed(delivery, outcome.error, outcome.statusCode)
      yield* metrics.increment(webhookDeliveriesMetric("failed_attempt"))
      if (status === "dead") {
        yield* metrics.increment(webhookDeliveriesMetric("dead"))
        yield* Effect.logWarning("webhook delivery dead after its last attempt", { deliveryId: delivery.id, eventType: delivery.eventType, attempts: delivery.attempts, error: outcome.error })
      }
      return true
    })

    for (let index = 0; index < config.webhooks.workers; index++) {
      yield* superviseActor(
        `webhook-deliverer-${index + 1}`,
        (actor) =>
          inBackground(
            Effect.forever(
              Effect.gen(function* () {
                if (yield* deliverOne) return
                yield* actor.setStatus("idle")
                yield* queue.waitForWork
                yield* actor.setStatus("running")
              })
            )
          ),
        { kind: "webhook-deliverer" }
      )
    }
  })
)
