/**
 * GET /metrics: the Prometheus text format (version 0.0.4) of the service's counters (deployment-wide,
 * from SQL, the same numbers as /api/v1/metrics), the outbox's and the webhook queue's depth by status
 * (SQL), and this
 * process's RPC endpoint scores, actor restarts, pipeline latency histograms (stageTelemetry.ts), statements
 * sent to PostgreSQL (statementCount.ts) and its CPU, memory, event-loop and GC figures (processMetrics.ts).
 * Rendering is prom-client's (escaping, types, histogram buckets); the values are read at scrape time.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { Counter, Gauge, Registry } from "prom-client"
import { ActorRegistry } from "../supervision/actorRegistry.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { ChainClient } from "../chain/chainClient.js"
import { route } from "../gateway/route.js"
import { WebhookDeliveryQueue } from "../webhooks/deliveryQueue.js"
import { counterSampleOf } from "./counterFamilies.js"
import { processMetricsRegistry } from "./processMetrics.js"
import { DatabaseStatements } from "../db/statementCount.js"
import { OutboxDepth } from "./queueDepth.js"
import { StageTelemetry } from "./stageTelemetry.js"
import { PrometheusApi } from "../../schemas/api/operations.js"

/** Counters beyond 2^53 are exact in SQL; Prometheus samples are float64 anyway. */
const sampleValue = (value: bigint) => Number(value)

const countersRegistry = (totals: ReadonlyMap<string, bigint>) => {
  const registry = new Registry()
  const families = new Map<string, Counter<string>>()
  for (const [name, value] of totals) {
    const sample = counterSampleOf(name)
    let counter = families.get(sample.family)
    if (counter === undefined) {
      counter = new Counter({ name: sample.family, help: sample.help, labelNames: Object.keys(sample.labels), registers: [registry] })
      families.set(sample.family, counter)
    }
    counter.inc(sample.labels, sampleValue(value))
  }
  return registry
}

export const renderPrometheus = Effect.gen(function* () {
  const counters = yield* MetricCounters
  const outbox = yield* OutboxDepth
  const chain = yield* ChainClient
  const actors = yield* ActorRegistry
  const telemetry = yield* StageTelemetry
  const webhooks = yield* WebhookDeliveryQueue
  const statements = yield* DatabaseStatements

  const registry = countersRegistry(yield* counters.snapshot)
  const depth = new Gauge({ name: "custody_outbox_jobs", help: "Outbox jobs by status (pending and processing are the queue's depth)", labelNames: ["status"], registers: [registry] })
  for (const [status, n] of Object.entries(yield* outbox.byStatus)) depth.set({ status }, n)
  const deliveries = new Gauge({ name: "custody_webhook_deliveries", help: "Webhook deliveries waiting (pending, processing) and dead-lettered", labelNames: ["status"], registers: [registry] })
  for (const [status, n] of Object.entries(yield* webhooks.depth)) deliveries.set({ status }, n)

  const score = new Gauge({ name: "custody_rpc_endpoint_score", help: "Score of each RPC endpoint of this process's pool (URL redacted)", labelNames: ["endpoint"], registers: [registry] })
  const latency = new Gauge({ name: "custody_rpc_endpoint_avg_latency_ms", help: "Average latency of each RPC endpoint of this process's pool", labelNames: ["endpoint"], registers: [registry] })
  for (const endpoint of chain.pool.status()) {
    score.set({ endpoint: endpoint.url }, endpoint.score)
    latency.set({ endpoint: endpoint.url }, endpoint.avgLatencyMs)
  }

  const restarts = new Counter({ name: "custody_actor_restarts_total", help: "Restarts of each actor of this process since it started", labelNames: ["actor", "kind"], registers: [registry] })
  for (const actor of yield* actors.list) {
    restarts.inc({ actor: actor.name, kind: actor.kind }, 0)
    if (actor.restarts > 0) restarts.inc({ actor: actor.name, kind: actor.kind }, actor.restarts)
  }

  const sent = new Counter({ name: "custody_db_statements_total", help: "Statements this process sent to PostgreSQL (each a round trip), BEGIN and COMMIT included", registers: [registry] })
  sent.inc(statements.sent)

  const merged = Registry.merge([registry, telemetry.registry, processMetricsRegistry()])
  return { contentType: merged.contentType, text: yield* Effect.promise(() => merged.metrics()) }
})

export const prometheusRoutes = [
  route(
    PrometheusApi.scrape,
    Effect.map(renderPrometheus, ({ contentType, text }) => HttpServerResponse.text(text, { contentType })),
    "deployment"
  )
]
