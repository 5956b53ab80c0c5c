/** Runtime actors (deployment routes): the supervised fibers of the answering process. */
import * as Schema from "effect/Schema"
import { PageFields, PaginationQuery, Timestamp } from "../common.js"
import { endpoint } from "./endpoint.js"

export const ActorSnapshot = Schema.Struct({
  name: Schema.String,
  kind: Schema.String,
  fiberId: Schema.NullOr(Schema.String),
  status: Schema.Literal("starting", "running", "idle", "restarting", "stopped", "failed"),
  startedAt: Timestamp,
  restarts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  lastErrorAt: Schema.NullOr(Timestamp),
  queueDepth: Schema.Int
}).annotations({ identifier: "Actor" })

export const ActorNameParams = Schema.Struct({ name: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(256)) })

export const RuntimeApi = {
  actors: endpoint("runtime", "GET", "/api/v1/runtime/actors", {
    summary: "The supervised actors of this process, by name",
    query: PaginationQuery,
    success: Schema.Struct({ actors: Schema.Array(ActorSnapshot), ...PageFields })
  }),
  actor: endpoint("runtime", "GET", "/api/v1/runtime/actors/:name", { summary: "One actor", params: ActorNameParams, success: ActorSnapshot })
}
