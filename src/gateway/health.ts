/** GET /health: no key needed ([n18]) so load balancers and orchestrators can probe it. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { ok } from "./envelope.js"
import { publicRoute } from "./route.js"
import { HealthApi } from "../../schemas/api/health.js"

export const healthRoutes = [
  publicRoute(
    HealthApi.health,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const database = yield* sql`SELECT 1`.pipe(
        Effect.as("ok" as const),
        Effect.timeout("2 seconds"),
        Effect.orElseSucceed(() => "unavailable" as const)
      )
      const body = { status: database === "ok" ? "ok" : "degraded", service: "api-gateway", timestamp: new Date().toISOString(), database }
      return database === "ok" ? ok(body) : { httpStatus: 503, data: body, failure: { errorCode: "PIPELINE_ERROR" as const, failedAt: "gateway" as const, message: "database unavailable" } }
    })
  )
]
