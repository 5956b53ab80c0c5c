/**
 * Metrics over HTTP: a map of counter name to integer; POST /metrics/inc adds to a counter (visible at
 * once, before the 500 ms flush, and durable after a restart); every audit event counts
 * `audit_event.<eventType>`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"

let service: RunningService

beforeAll(async () => {
  service = await startService({ rpcUrl: "http://127.0.0.1:9" })
})

afterAll(async () => {
  await service?.stop()
})

const metrics = async () => {
  const answer = await makeClient(service.baseUrl).audit.metrics({})
  expect(answer.status).toBe(200)
  return answer.body.data as Record<string, number>
}

describe("metrics", () => {
  it("increments a counter by value (default 1) and answers its total", async () => {
    const first = await makeClient(service.baseUrl).audit.incrementMetric({ body: { name: "custom.jobs", value: 5 } })
    expect(first.status).toBe(200)
    expect(first.body.data).toEqual({ name: "custom.jobs", value: 5 })
    const second = await makeClient(service.baseUrl).audit.incrementMetric({ body: { name: "custom.jobs" } })
    expect(second.body.data).toEqual({ name: "custom.jobs", value: 6 })
    const all = await metrics()
    expect(all["custom.jobs"]).toBe(6)
    for (const value of Object.values(all)) expect(Number.isInteger(value)).toBe(true)
  })

  it("refuses a bad name or value with a 400 naming the field", async () => {
    for (const [body, field] of [
      [{ value: 1 }, "name"],
      [{ name: "has space" }, "name"],
      [{ name: "x", value: 0 }, "value"],
      [{ name: "x", value: -3 }, "value"],
      [{ name: "x", value: 1.5 }, "value"],
      [{ name: "x", value: "2" }, "value"]
    ] as const) {
      const refused = await api(service.baseUrl, "POST", "/api/v1/metrics/inc", body)
      expect(refused.status).toBe(400)
      expect(refused.body.error).toContain(field)
    }
    expect((await metrics())["x"]).toBeUndefined()
  })

  it("counts every recorded audit event as audit_event.<eventType>", async () => {
    const before = (await metrics())["audit_event.custom.counted"] ?? 0
    for (let i = 0; i < 3; i++) {
      await makeClient(service.baseUrl).audit.post({ body: { eventType: "custom.counted", message: `n${i}` } })
    }
    expect((await metrics())["audit_event.custom.counted"]).toBe(before + 3)
  })

  it("keeps counters across a restart (flushed to SQL on shutdown)", async () => {
    await makeClient(service.baseUrl).audit.incrementMetric({ body: { name: "custom.durable", value: 41 } })
    await service.stop({ keepData: true })
    service = await startService({ rpcUrl: "http://127.0.0.1:9", reuse: { dataDir: service.dataDir, database: service.database } })
    expect((await metrics())["custom.durable"]).toBe(41)
    expect((await metrics())["custom.jobs"]).toBe(6)
  })
})
