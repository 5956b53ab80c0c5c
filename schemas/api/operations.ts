/** Deployment operations (spec: Health and operations): the chaos config, the outbox, the RPC pool, Prometheus. */
import * as Schema from "effect/Schema"
import { ChaosConfig, ChaosUpdateBody } from "../chain.js"
import { Timestamp } from "../common.js"
import { endpoint } from "./endpoint.js"

export const ChaosApi = {
  get: endpoint("operations", "GET", "/api/v1/chaos", { summary: "The deployment's chaos config", success: ChaosConfig }),
  update: endpoint("operations", "PUT", "/api/v1/chaos", {
    summary: "Change the chaos config (given fields only; 403 where chaos is not allowed)",
    body: ChaosUpdateBody,
    success: ChaosConfig
  })
}

export const OutboxApi = {
  stats: endpoint("operations", "GET", "/api/v1/outbox/stats", {
    summary: "Outbox jobs by status",
    success: Schema.Struct({ pending: Schema.Int, processing: Schema.Int, failed: Schema.Int, done: Schema.Int })
  })
}

/** An RPC endpoint of this process's pool, as scored (its URL redacted: no API key of a paid endpoint). */
export const RpcEndpointStatus = Schema.Struct({
  url: Schema.String,
  score: Schema.Number,
  successes: Schema.Int,
  failures: Schema.Int,
  avgLatencyMs: Schema.Number,
  failStreak: Schema.Int,
  lastCheckedAt: Schema.NullOr(Timestamp),
  lastError: Schema.optional(Schema.String)
}).annotations({ identifier: "RpcEndpointStatus" })

export const RpcPoolApi = {
  status: endpoint("operations", "GET", "/api/v1/rpc/pool/status", {
    summary: "The scored endpoints of this process's RPC pool",
    success: Schema.Struct({ endpoints: Schema.Array(RpcEndpointStatus) })
  })
}

/** Prometheus scrapes text, not the envelope (issue 19 item 2; docs/decisions/observability.md). */
export const PrometheusApi = {
  scrape: endpoint("operations", "GET", "/metrics", {
    summary: "Counters, stage latency histograms, outbox depth, RPC pool scores and actor restarts in the Prometheus text format",
    raw: [{ status: 200, description: "Prometheus text exposition format 0.0.4", contentTypes: ["text/plain; version=0.0.4; charset=utf-8"] }]
  })
}
