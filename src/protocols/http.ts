/**
 * Protocol routes (spec: Protocols and DeFi helpers): adapters, their versions and health, intent
 * compatibility checks and intent migration between adapter versions. An unknown protocol is a 404.
 */
import { Effect, Either, Schema } from "effect"
import { NotFound, ValidationError } from "../../schemas/errors.js"
import { MigrateIntentBody, ProtocolCompatibilityCheckBody } from "../../schemas/intent.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { checkCompatibility } from "./compatibility.js"
import { migrateIntent } from "./intentMigration.js"
import { ProtocolHealthCheck } from "./protocolHealth.js"
import { adapterToWire, findAdapter } from "./registry.js"
import { ProtocolsApi } from "../../schemas/api/protocols.js"

const ProtocolParam = Schema.String.pipe(Schema.maxLength(64, { message: () => "must be at most 64 characters" }))

/** The adapter named by the `<protocol>` path parameter, or a 404. */
const adapterFromPath = Effect.gen(function* () {
  const protocol = yield* pathParam("protocol", ProtocolParam)
  const { registry } = yield* ProtocolHealthCheck
  const adapter = findAdapter(registry, protocol)
  if (adapter === undefined) return yield* Effect.fail(new NotFound({ resource: "protocol", id: protocol }))
  return adapter
})

export const protocolRoutes = [
  route(
    ProtocolsApi.list,
    Effect.gen(function* () {
      const { registry } = yield* ProtocolHealthCheck
      return ok({ protocols: registry.map(adapterToWire) })
    })
  ),
  route(
    ProtocolsApi.health,
    Effect.gen(function* () {
      return ok({ protocols: yield* (yield* ProtocolHealthCheck).checkAll })
    })
  ),
  route(
    ProtocolsApi.capabilities,
    Effect.map(adapterFromPath, (adapter) => ok(adapterToWire(adapter)))
  ),
  route(
    ProtocolsApi.version,
    Effect.map(adapterFromPath, (adapter) => ok({ protocol: adapter.protocol, version: adapter.version }))
  ),
  route(
    ProtocolsApi.protocolHealth,
    Effect.gen(function* () {
      const adapter = yield* adapterFromPath
      const health = yield* (yield* ProtocolHealthCheck).check(adapter.protocol)
      if (health === undefined) return yield* Effect.fail(new NotFound({ resource: "protocol", id: adapter.protocol }))
      return ok(health)
    })
  ),
  route(
    ProtocolsApi.compatibilityCheck,
    Effect.gen(function* () {
      const adapter = yield* adapterFromPath
      const body = yield* decodeBody(ProtocolCompatibilityCheckBody)
      return ok(checkCompatibility(adapter, { type: body.type, intent: body.intent }))
    })
  ),
  route(
    ProtocolsApi.migrateIntent,
    Effect.gen(function* () {
      const adapter = yield* adapterFromPath
      const body = yield* decodeBody(MigrateIntentBody)
      const migrated = migrateIntent({
        protocol: adapter.protocol,
        intent: body.intent,
        targetVersion: body.targetVersion,
        ...(body.fromVersion === undefined ? {} : { fromVersion: body.fromVersion })
      })
      if (Either.isLeft(migrated)) {
        const message = migrated.left.message
        const field = message.startsWith("unknown fromVersion")
          ? "fromVersion"
          : message.startsWith("unknown targetVersion") || message.startsWith("cannot migrate")
            ? "targetVersion"
            : "intent"
        return yield* Effect.fail(new ValidationError({ message: `${field}: ${migrated.left.message}`, field }))
      }
      return ok(migrated.right)
    })
  )
]
