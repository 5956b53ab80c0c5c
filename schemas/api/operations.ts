/** Deployment operations (spec: Health and operations): the chaos config and the outbox. */
import * as Schema from "effect/Schema"
import { ChaosConfig, ChaosUpdateBody } from "../chain.js"
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
