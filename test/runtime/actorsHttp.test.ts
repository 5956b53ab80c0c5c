/**
 * Runtime actors over HTTP: every supervised fiber of the process with its status, restarts and last
 * error. A deliberately crashing test actor (fails twice, then runs) shows 2 restarts and its error;
 * an unknown name is a 404; the route needs the agents scope and a caller not bound to a tenant.
 */
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { superviseActor } from "../../src/supervision/superviseActor.js"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"
import { waitFor } from "../support/wait.js"

const CRASHY = "test-crashy"

/** Fails on its first two runs, then stays up. */
const CrashyActorLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    let runs = 0
    yield* superviseActor(
      CRASHY,
      () =>
        Effect.suspend(() => {
          runs += 1
          return runs <= 2 ? Effect.fail(new Error(`crash number ${runs}`)) : Effect.never
        }),
      { kind: "test", initialBackoff: "10 millis" }
    )
  })
)

let service: RunningService

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    extraLayer: CrashyActorLive,
    env: { API_GATEWAY_API_KEYS: "k-ops:*:all;k-agents:*:agents;k-wallets:*:wallets;k-tenant:tenant-a:agents" }
  })
})

afterAll(async () => {
  await service?.stop()
})

const OPS = { "x-api-key": "k-ops" }

describe("GET /api/v1/runtime/actors", () => {
  it("shows the crashing actor restarted twice with its last error, then running", async () => {
    await waitFor("the crashing actor's second restart", async () => {
      const actor = await makeClient(service.baseUrl, OPS).runtime.actor({ params: { name: CRASHY } })
      return actor.body.data?.restarts === 2 && actor.body.data?.status === "running"
    })
    const actor = await makeClient(service.baseUrl, OPS).runtime.actor({ params: { name: CRASHY } })
    expect(actor.status).toBe(200)
    expect(actor.body.data).toMatchObject({ name: CRASHY, kind: "test", status: "running", restarts: 2, lastError: "crash number 2", queueDepth: 0 })
    expect(actor.body.data.fiberId).toEqual(expect.any(String))
    expect(new Date(actor.body.data.startedAt).toISOString()).toBe(actor.body.data.startedAt)
  })

  it("lists every actor of the process, the service's own included", async () => {
    const listed = await makeClient(service.baseUrl, { "x-api-key": "k-agents" }).runtime.actors({})
    expect(listed.status).toBe(200)
    const names = listed.body.data.actors.map((a) => a.name)
    expect(names).toContain(CRASHY)
    expect(names).toContain("rpc-prober")
    expect(listed.body.data.total).toBe(names.length)
    for (const actor of listed.body.data.actors) {
      expect(Object.keys(actor)).toEqual(
        expect.arrayContaining(["name", "kind", "fiberId", "status", "startedAt", "restarts", "lastError", "queueDepth"])
      )
    }
  })

  it("answers 404 for an unknown actor", async () => {
    const missing = await makeClient(service.baseUrl, OPS).runtime.actor({ params: { name: "no-such-actor" } })
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
    expect(missing.body.error).toContain("no-such-actor")
  })

  it("needs the agents scope and a key not bound to a tenant", async () => {
    const noScope = await makeClient(service.baseUrl, { "x-api-key": "k-wallets" }).runtime.actors({})
    expect(noScope.status).toBe(403)
    expect(noScope.body.error).toContain("agents")
    const bound = await makeClient(service.baseUrl, { "x-api-key": "k-tenant" }).runtime.actors({})
    expect(bound.status).toBe(403)
    const narrowed = await makeClient(service.baseUrl, { ...OPS, "x-tenant-id": "tenant-a" }).runtime.actors({})
    expect(narrowed.status).toBe(403)
  })
})
