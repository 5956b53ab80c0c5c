/**
 * Chaos over HTTP and as the pipeline calls it: off and unchangeable (403) unless CHAOS_ENABLED=true;
 * partial updates (a failureRates map given is the whole map); rate 0 never fails, rate 1 always does, latency is added; a stored config has no
 * effect once the service restarts without CHAOS_ENABLED.
 */
import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Chaos, type ChaosStage } from "../../src/pipeline/chaos.js"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"
import { api } from "../support/service.js"
import type { EndpointInput } from "../support/client.js"
import type { ChaosApi } from "../../schemas/api/operations.js"

const DEAD_RPC = "http://127.0.0.1:9"
const OFF = { enabled: false, failureRates: { simulation: 0, build: 0, sign: 0, send: 0 }, latencyMs: 0 }

/** Runs `inject(stage)` n times in the service; answers how many failed and their messages. */
const injectMany = (service: RunningService, stage: ChaosStage, n: number) =>
  service.runtime.runPromise(
    Effect.gen(function* () {
      const chaos = yield* Chaos
      const messages: string[] = []
      for (let i = 0; i < n; i++) {
        const exit = yield* Effect.exit(chaos.inject(stage))
        if (Exit.isFailure(exit)) {
          const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
          messages.push(failure === undefined ? "defect" : `${failure._tag}: ${failure.message}`)
        }
      }
      return messages
    })
  )

describe("chaos without CHAOS_ENABLED", () => {
  let service: RunningService
  beforeAll(async () => {
    service = await startService({ rpcUrl: DEAD_RPC })
  })
  afterAll(async () => {
    await service?.stop()
  })

  it("reads the default config and refuses every change with 403", async () => {
    const got = await makeClient(service.baseUrl).chaos.get({})
    expect(got.status).toBe(200)
    expect(got.body.data).toEqual(OFF)
    for (const body of [{ enabled: true }, { failureRates: { send: 1 } }, {}, "not json"]) {
      const refused = await api(service.baseUrl, "PUT", "/api/v1/chaos", body)
      expect(refused.status).toBe(403)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
      expect(refused.body.error).toContain("CHAOS_ENABLED")
    }
    expect((await makeClient(service.baseUrl).chaos.get({})).body.data).toEqual(OFF)
    expect(await injectMany(service, "send", 50)).toEqual([])
  })

  it("needs the risk scope ([n17])", async () => {
    const restricted = await startService({ rpcUrl: DEAD_RPC, env: { API_GATEWAY_API_KEYS: "k-wallets:*:wallets;k-risk:*:risk" } })
    try {
      expect((await makeClient(restricted.baseUrl, { "x-api-key": "k-wallets" }).chaos.get({})).status).toBe(403)
      expect((await makeClient(restricted.baseUrl, { "x-api-key": "k-risk" }).chaos.get({})).status).toBe(200)
    } finally {
      await restricted.stop()
    }
  })
})

describe("chaos with CHAOS_ENABLED=true", () => {
  let service: RunningService
  beforeAll(async () => {
    service = await startService({ rpcUrl: DEAD_RPC, env: { CHAOS_ENABLED: "true" } })
  })
  afterAll(async () => {
    await service?.stop()
  })

  const put = (body: EndpointInput<typeof ChaosApi.update>["body"]) => makeClient(service.baseUrl).chaos.update({ body })

  it("changes only the fields given; failureRates given is the whole map, and an empty map clears it", async () => {
    const first = await put({ enabled: true, failureRates: { send: 0.5, sign: 0.1 } })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({ enabled: true, failureRates: { simulation: 0, build: 0, sign: 0.1, send: 0.5 }, latencyMs: 0 })
    const second = await put({ failureRates: { build: 0.25 }, latencyMs: 10 })
    expect(second.body.data).toEqual({ enabled: true, failureRates: { simulation: 0, build: 0.25, sign: 0, send: 0 }, latencyMs: 10 })
    expect((await makeClient(service.baseUrl).chaos.get({})).body.data).toEqual(second.body.data)
    // Without failureRates the rates stay; an empty map resets them all.
    expect((await put({ latencyMs: 0 })).body.data.failureRates).toEqual(second.body.data.failureRates)
    const reset = await put({ failureRates: {} })
    expect(reset.status).toBe(200)
    expect(reset.body.data).toEqual({ enabled: true, failureRates: { simulation: 0, build: 0, sign: 0, send: 0 }, latencyMs: 0 })
    expect(await injectMany(service, "build", 50)).toEqual([])
  })

  it("refuses rates outside 0-1 and a negative latency, naming the field, changing nothing", async () => {
    const before = (await makeClient(service.baseUrl).chaos.get({})).body.data
    for (const [body, field] of [
      [{ failureRates: { send: 1.5 } }, "failureRates.send"],
      [{ failureRates: { sign: -0.1 } }, "failureRates.sign"],
      [{ latencyMs: -1 }, "latencyMs"],
      [{ enabled: "yes" }, "enabled"]
    ] as const) {
      const refused = await api(service.baseUrl, "PUT", "/api/v1/chaos", body)
      expect(refused.status).toBe(400)
      expect(refused.body.error).toContain(field)
    }
    expect((await makeClient(service.baseUrl).chaos.get({})).body.data).toEqual(before)
  })

  it("rate 0 never fails, rate 1 always fails with a ChaosFault naming the stage", async () => {
    await put({ enabled: true, failureRates: { simulation: 0, build: 0, sign: 1, send: 0 }, latencyMs: 0 })
    expect(await injectMany(service, "simulation", 200)).toEqual([])
    expect(await injectMany(service, "build", 200)).toEqual([])
    const failures = await injectMany(service, "sign", 200)
    expect(failures).toHaveLength(200)
    expect(new Set(failures)).toEqual(new Set(["ChaosFault: chaos: injected failure at the sign stage (chaos testing is enabled; not a real sign failure)"]))
    const counters = (await makeClient(service.baseUrl).audit.metrics({})).body.data
    expect(counters["chaos.injected.sign"]).toBe(200)
  })

  it("adds latencyMs before each stage; disabled chaos adds nothing and never fails", async () => {
    await put({ enabled: true, failureRates: { send: 0 }, latencyMs: 60 })
    const started = performance.now()
    await injectMany(service, "send", 3)
    expect(performance.now() - started).toBeGreaterThanOrEqual(3 * 60 - 5)
    await put({ enabled: false, failureRates: { send: 1 } })
    expect(await injectMany(service, "send", 100)).toEqual([])
  })

  it("a stored config has no effect after a restart without CHAOS_ENABLED", async () => {
    await put({ enabled: true, failureRates: { send: 1 }, latencyMs: 0 })
    expect(await injectMany(service, "send", 5)).toHaveLength(5)
    await service.stop({ keepData: true })
    service = await startService({ rpcUrl: DEAD_RPC, reuse: { dataDir: service.dataDir, database: service.database } })
    const got = await makeClient(service.baseUrl).chaos.get({})
    expect(got.body.data).toMatchObject({ enabled: false, failureRates: { send: 1 } })
    expect(await injectMany(service, "send", 50)).toEqual([])
  })
})
