/**
 * One tenant's bad value never stops another tenant's audit and metric writes (issue 11 item 9): the
 * gateway refuses the values that used to poison the batch; a row the database still refuses is
 * dropped alone (counted, logged) while the rest of its batch lands; what is queued is written at
 * shutdown.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DROPPED_METRIC } from "../../src/audit/auditBatch.js"
import { AuditLog } from "../../src/audit/auditLog.js"
import { MetricCounters } from "../../src/audit/metricCounters.js"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"
import { waitFor } from "../support/wait.js"

const A = { "x-api-key": "key-a" }
const B = { "x-api-key": "key-b" }
const OPS = { "x-api-key": "key-ops" }
const serviceEnv = { API_GATEWAY_API_KEYS: "key-a:tenant-a:all;key-b:tenant-b:all;key-ops:*:all" }
let service: RunningService
let walletA: string
let walletB: string

beforeAll(async () => {
  service = await startService({ rpcUrl: "http://127.0.0.1:9", env: serviceEnv })
  walletA = (await makeClient(service.baseUrl, A).wallets.create({ body: {} })).body.data.id
  walletB = (await makeClient(service.baseUrl, B).wallets.create({ body: {} })).body.data.id
})
afterAll(async () => {
  await service?.stop()
})

const auditLog = <A>(use: (log: AuditLog) => Effect.Effect<A>) => service.runtime.runPromise(Effect.flatMap(AuditLog, use))
const eventsOf = async (headers: Record<string, string>, eventType: string) =>
  (await makeClient(service.baseUrl, headers).audit.list({ query: { eventType: encodeURIComponent(eventType), limit: "1000" } })).body.data.events
const counter = async (name: string) => Number((await makeClient(service.baseUrl, OPS).audit.metrics({})).body.data[name] ?? 0)
describe("audit writes of every tenant survive one tenant's bad value", () => {
  it("refuses the poisoning requests at the gateway; the other tenant's evaluations are all audited", async () => {
    const poisoned = await makeClient(service.baseUrl, A).policies.evaluate({ body: { walletId: walletA, type: "transfer_sol", protocol: "system-program\u0000" } })
    expect(poisoned.status).toBe(400)
    expect((await makeClient(service.baseUrl, A).policies.evaluate({ body: { walletId: walletA, type: "transfer_sol", protocol: "\ud800" } })).status).toBe(400)
    expect((await makeClient(service.baseUrl, A).audit.post({ body: { eventType: "x\u0000", message: "m" } })).status).toBe(400)
    for (let i = 0; i < 10; i++) {
      const evaluated = await makeClient(service.baseUrl, B).policies.evaluate({ body: { walletId: walletB, type: "transfer_sol", protocol: "system-program", amountLamports: i + 1 } })
      expect(evaluated.status).toBe(200)
    }
    await waitFor("the other tenant's ten evaluations", async () => (await eventsOf(B, "policy.evaluated")).length === 10, 5_000)
  })

  it("drops only the row the database refuses; the rest of its batch lands and the loss is counted", async () => {
    const droppedBefore = await counter(DROPPED_METRIC)
    await auditLog((log) =>
      Effect.gen(function* () {
        // A row no gateway input can make any more (a txId that is no uuid), queued between good ones.
        yield* log.recordSoon({ tenantId: "tenant-b", eventType: "test.before", message: "before" })
        yield* log.recordSoon({ tenantId: "tenant-a", eventType: "test.poison", message: "bad", txId: "not-a-uuid" })
        yield* log.recordSoon({ tenantId: "tenant-b", eventType: "test.after", message: "after" })
        // Text PostgreSQL refuses is stored with U+FFFD instead of failing the batch.
        yield* log.recordSoon({ tenantId: "tenant-b", eventType: "test.nul", message: "a\u0000b\ud800c" })
        yield* log.flushQueued
      })
    )
    expect((await eventsOf(B, "test.before")).map((e) => e.message)).toEqual(["before"])
    expect((await eventsOf(B, "test.after")).map((e) => e.message)).toEqual(["after"])
    expect((await eventsOf(B, "test.nul")).map((e) => e.message)).toEqual(["a\ufffdb\ufffdc"])
    expect(await eventsOf(A, "test.poison")).toEqual([])
    await waitFor("one dropped audit write", async () => (await counter(DROPPED_METRIC)) === droppedBefore + 1, 5_000)
    // The queue is not stuck: a later event lands on the next tick by itself.
    await auditLog((log) => log.recordSoon({ tenantId: "tenant-b", eventType: "test.later", message: "later" }))
    await waitFor("the later event", async () => (await eventsOf(B, "test.later")).length === 1, 5_000)
  })

  it("drops only the counter the database refuses; the other counters of the flush land", async () => {
    await service.runtime.runPromise(
      Effect.gen(function* () {
        const counters = yield* MetricCounters
        yield* counters.increment("test.overflow", 2n ** 63n)
        yield* counters.increment("test.fine", 3)
        yield* counters.flush
      })
    )
    const stored = await service.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ name: string; value: string }>`SELECT name, value::text AS value FROM metric_counters WHERE name LIKE 'test.%' OR name = 'metric_counter_dropped_total'`)
    )
    const byName = Object.fromEntries(stored.map((row) => [row.name, row.value]))
    expect(byName["test.fine"]).toBe("3")
    expect(byName["test.overflow"]).toBeUndefined()
    await waitFor("one dropped metric counter", async () => (await counter("metric_counter_dropped_total")) >= 1, 5_000)
  })

  it("writes the queued events at shutdown", async () => {
    await auditLog((log) =>
      Effect.forEach([1, 2, 3], (n) => log.recordSoon({ tenantId: "tenant-b", eventType: "test.shutdown", message: `queued ${n}` }), { discard: true })
    )
    await service.stop({ keepData: true })
    service = await startService({ rpcUrl: "http://127.0.0.1:9", env: serviceEnv, reuse: { dataDir: service.dataDir, database: service.database } })
    expect((await eventsOf(B, "test.shutdown")).map((e) => e.message).sort()).toEqual(["queued 1", "queued 2", "queued 3"])
  })
})
