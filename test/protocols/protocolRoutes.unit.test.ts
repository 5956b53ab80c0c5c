/**
 * The protocol routes in process over the registry's Test layer: no application, no ledger, no database.
 * (protocolsHttp.test.ts checks the same routes through the service with health read from real ledgers.)
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { protocolRoutes } from "../../src/protocols/http.js"
import { ProtocolHealthCheckTest } from "../../src/protocols/protocolRegistryTest.js"
import { call, serveRoutes } from "../support/routeServer.js"

const served = serveRoutes(protocolRoutes).pipe(Layer.provide(ProtocolHealthCheckTest))

describe("protocol routes over the registry's Test layer", () => {
  it.effect("lists every adapter of the registry in the spec's shape", () =>
    Effect.gen(function* () {
      const listed = yield* call("GET", "/api/v1/protocols")
      expect(listed.status).toBe(200)
      const protocols = listed.body.data.protocols as Array<Record<string, unknown>>
      expect(protocols).toHaveLength(9)
      expect(protocols.find((p) => p.protocol === "system-program")).toEqual({
        protocol: "system-program", version: "1.0.0", capabilities: ["transfer_sol", "create_account"], programIds: ["11111111111111111111111111111111"]
      })
    }).pipe(Effect.provide(served))
  )

  it.effect("answers an adapter's capabilities and health, and 404 for an unknown protocol", () =>
    Effect.gen(function* () {
      const capabilities = yield* call("GET", "/api/v1/protocols/spl-token/capabilities")
      expect(capabilities.body.data).toMatchObject({ protocol: "spl-token", capabilities: ["transfer_spl", "create_mint", "mint_token", "burn_token", "x402_pay"] })
      const health = yield* call("GET", "/api/v1/protocols/escrow/health")
      expect(health.body.data).toEqual({ protocol: "escrow", ok: true })
      const unknown = yield* call("GET", "/api/v1/protocols/not-a-protocol/version")
      expect(unknown.status).toBe(404)
      expect(unknown.body.error).toBe("protocol not-a-protocol not found")
    }).pipe(Effect.provide(served))
  )

  it.effect("refuses a migration to an unknown version, naming the field", () =>
    Effect.gen(function* () {
      const refused = yield* call("POST", "/api/v1/protocols/system-program/migrate-intent", {
        intent: { to: "11111111111111111111111111111111", amountLamports: "1" },
        targetVersion: "9.9.9"
      })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toMatch(/^targetVersion: /)
    }).pipe(Effect.provide(served))
  )
})
