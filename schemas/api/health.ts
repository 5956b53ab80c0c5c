/** GET /health (spec: Health and operations; [n18] no key needed). */
import * as Schema from "effect/Schema"
import { Timestamp } from "../common.js"
import { endpoint } from "./endpoint.js"

export const Health = Schema.Struct({
  status: Schema.Literal("ok", "degraded"),
  service: Schema.String,
  timestamp: Timestamp,
  database: Schema.Literal("ok", "unavailable")
})

export const HealthApi = {
  health: endpoint("health", "GET", "/health", { summary: "Liveness and database reachability (no key needed)", success: Health })
}
