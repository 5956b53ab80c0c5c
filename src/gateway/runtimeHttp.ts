/**
 * Runtime actors (GET /api/v1/runtime/actors[/<name>]): every supervised fiber of THIS process, from
 * the ActorRegistry. Scope `agents` (routeScopes.ts). Actors are process-wide and their names and
 * errors may name any tenant's agents, so these are deployment routes (route.ts): only an operator's
 * key reading across tenants (tenant `*`, without x-tenant-id) may list them; any other key gets 403.
 */
import { Effect, Schema } from "effect"
import { ActorRegistry } from "../supervision/actorRegistry.js"
import { encodePageCursor, PaginationQuery } from "../../schemas/common.js"
import { NotFound } from "../../schemas/errors.js"
import { ok } from "./envelope.js"
import { decodeQuery, pathParam } from "./request.js"
import { route } from "./route.js"
import { RuntimeApi } from "../../schemas/api/runtime.js"

const ActorName = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }), Schema.maxLength(256, { message: () => "must be at most 256 characters" }))

export const runtimeRoutes = [
  route(
    RuntimeApi.actors,
    Effect.gen(function* () {
      const page = yield* decodeQuery(PaginationQuery)
      // Sorted by name; a cursor is the last name of the page before (10,000 agent actors make a long list).
      const actors = yield* (yield* ActorRegistry).list
      const after = page.cursor === undefined ? actors : actors.filter((actor) => actor.name > page.cursor![0]!)
      const items = after.slice(page.offset, page.offset + page.limit)
      const more = after.length > page.offset + page.limit
      return ok({
        actors: items,
        total: actors.length,
        totalCapped: false,
        limit: page.limit,
        offset: page.offset,
        nextCursor: more && items.length > 0 ? encodePageCursor([items[items.length - 1]!.name]) : null
      })
    }),
    "deployment"
  ),
  route(
    RuntimeApi.actor,
    Effect.gen(function* () {
      const name = yield* pathParam("name", ActorName)
      const actor = yield* (yield* ActorRegistry).get(name)
      if (actor === undefined) return yield* Effect.fail(new NotFound({ resource: "actor", id: name }))
      return ok(actor)
    }),
    "deployment"
  )
]
