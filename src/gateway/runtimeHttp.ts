/**
 * Runtime actors (GET /api/v1/runtime/actors[/<name>]): every supervised fiber of THIS process, from
 * the ActorRegistry. Scope `agents` (routeScopes.ts). Actors are process-wide and their names and
 * errors may name any tenant's agents, so only a caller reading across tenants (a key not bound to a
 * tenant, without x-tenant-id) may list them; a tenant-bound caller gets 403.
 */
import { Effect, Schema } from "effect"
import { ActorRegistry } from "../../actors/registry.js"
import { Forbidden, NotFound } from "../../schemas/errors.js"
import { Caller } from "./caller.js"
import { ok } from "./envelope.js"
import { pathParam } from "./request.js"
import { route } from "./route.js"

const ActorName = Schema.String.pipe(Schema.minLength(1, { message: () => "must not be empty" }), Schema.maxLength(256, { message: () => "must be at most 256 characters" }))

const requireCrossTenantReader = Effect.flatMap(Caller, (caller) =>
  caller.readTenant === null
    ? Effect.void
    : Effect.fail(new Forbidden({ message: "runtime actors are process-wide: use a key that is not bound to a tenant, without x-tenant-id" }))
)

export const runtimeRoutes = [
  route(
    "GET",
    "/api/v1/runtime/actors",
    Effect.gen(function* () {
      yield* requireCrossTenantReader
      const actors = yield* (yield* ActorRegistry).list
      return ok({ actors, total: actors.length })
    })
  ),
  route(
    "GET",
    "/api/v1/runtime/actors/:name",
    Effect.gen(function* () {
      yield* requireCrossTenantReader
      const name = yield* pathParam("name", ActorName)
      const actor = yield* (yield* ActorRegistry).get(name)
      if (actor === undefined) return yield* Effect.fail(new NotFound({ resource: "actor", id: name }))
      return ok(actor)
    })
  )
]
