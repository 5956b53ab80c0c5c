/** Audit and operations tools (spec: Tool interface, Audit; plus the operations reads the gateway serves). */
import { Schema } from "effect"
import { AuditApi } from "../../../schemas/api/audit.js"
import type { Endpoint } from "../../../schemas/api/endpoint.js"
import { OutboxApi, RpcPoolApi } from "../../../schemas/api/operations.js"
import { RuntimeApi } from "../../../schemas/api/runtime.js"
import { JsonObject } from "../args.js"
import { tool } from "../toolDefinition.js"

const read = (name: string, endpoint: Endpoint, description: string) =>
  tool({ name, description, endpoint, args: Schema.Struct({}), readOnly: true, request: () => ({ method: "GET", path: endpoint.path }) })

export const auditTools = [
  tool({
    name: "audit.events",
    description: "Audit events, filtered by any of txId, agentId, walletId, protocol, escrowId, entityType, category, limit.",
    endpoint: AuditApi.list,
    args: Schema.Struct({
      txId: Schema.optional(Schema.String),
      agentId: Schema.optional(Schema.String),
      walletId: Schema.optional(Schema.String),
      protocol: Schema.optional(Schema.String),
      escrowId: Schema.optional(Schema.String),
      entityType: Schema.optional(Schema.String),
      category: Schema.optional(Schema.String),
      limit: Schema.optional(Schema.Number)
    }),
    readOnly: true,
    request: (args) => ({ method: "GET", path: "/api/v1/audit/events", query: args })
  }),
  read("audit.metrics", AuditApi.metrics, "The metric counters (name to integer)."),
  tool({
    name: "audit.record_event",
    description: "Record a custom audit event (eventType, message, metadata?).",
    endpoint: AuditApi.post,
    args: Schema.Struct({ eventType: Schema.String, message: Schema.String, metadata: Schema.optional(JsonObject) }),
    readOnly: false,
    request: (args) => ({ method: "POST", path: "/api/v1/audit/events", body: args })
  }),
  read("ops.rpc_pool_status", RpcPoolApi.status, "The RPC pool's endpoints: score, latency, health."),
  read("ops.outbox_stats", OutboxApi.stats, "Outbox jobs by state: pending, processing, failed, done."),
  read("ops.actors", RuntimeApi.actors, "The service's long-lived actors: status, restarts, last error.")
]
