/**
 * The NOTIFY relay of stage events between processes on one PostgreSQL (src/pipeline/stageEvents.ts),
 * seen from "another process": a plain node-postgres client that LISTENs on the channel and speaks the
 * relay's payload, beside the service's StageEvents on the same database. A process relays while it has
 * just started (it cannot know yet who listens) and while another process is heard; alone past
 * PEER_TTL_MS it relays nothing but its heartbeat; and another process's events reach its subscribers.
 */
import { Effect, Queue } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PEER_TTL_MS, type StageEvent, StageEvents } from "../../src/pipeline/stageEvents.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { databaseRuntime } from "../support/databaseRuntime.js"

interface Relayed {
  readonly origin: string
  readonly events: ReadonlyArray<StageEvent>
}

const event = (txId: string, status: string): StageEvent => ({
  type: "stage", txId, tenantId: "default", walletId: "00000000-0000-4000-8000-000000000001", agentId: null,
  status, stage: status === "confirmed" ? "confirm" : "simulation", at: new Date().toISOString()
})

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const until = async (check: () => boolean, ms: number) => {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await sleep(20)
  return check()
}

describe("stage events between processes", () => {
  let database: TestDatabase
  let peer: pg.Client
  const heard: Array<Relayed> = []

  beforeAll(async () => {
    database = await createTestDatabase()
    peer = new pg.Client({ connectionString: database.url })
    await peer.connect()
    peer.on("notification", (message) => heard.push(JSON.parse(message.payload ?? "{}") as Relayed))
    await peer.query("LISTEN stage_events")
  })

  afterAll(async () => {
    await peer?.end()
    await database?.drop()
  })

  it("relays while just started or while another process is heard, nothing else when alone, and publishes the others' events", async () => {
    const { runtime, dispose } = databaseRuntime(database.url, StageEvents.Default)
    try {
      const events = await runtime.runPromise(StageEvents)
      const relayedIds = () => heard.flatMap((payload) => payload.events.map((e) => e.txId))
      const ownOrigin = () => heard.find((payload) => payload.events.some((e) => e.txId === "just-started"))?.origin

      // Just started: relayed, since another process may already listen.
      await runtime.runPromise(events.publish(event("just-started", "simulating")))
      expect(await until(() => relayedIds().includes("just-started"), 5_000)).toBe(true)

      // Alone past PEER_TTL_MS: it still says it listens (empty heartbeats), and relays nothing.
      await sleep(PEER_TTL_MS + 500)
      await runtime.runPromise(events.publish(event("alone", "confirmed")))
      const heartbeatsBefore = heard.filter((payload) => payload.origin === ownOrigin() && payload.events.length === 0).length
      await sleep(2_500)
      expect(relayedIds()).not.toContain("alone")
      expect(heard.filter((payload) => payload.origin === ownOrigin() && payload.events.length === 0).length).toBeGreaterThan(heartbeatsBefore)

      // Another process speaks (its own event): the service's subscribers get it, and its next events go out again.
      const fromPeer = event("from-peer", "confirmed")
      const received = await runtime.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const queue = yield* events.subscribe
            yield* Effect.promise(() => peer.query("SELECT pg_notify('stage_events', $1)", [JSON.stringify({ origin: "peer-process", events: [fromPeer] })]))
            return yield* Queue.take(queue).pipe(Effect.timeout("5 seconds"))
          })
        )
      )
      expect(received).toMatchObject({ txId: "from-peer", status: "confirmed" })
      await runtime.runPromise(events.publish(event("heard-peer", "confirmed")))
      expect(await until(() => relayedIds().includes("heard-peer"), 5_000)).toBe(true)
    } finally {
      await dispose()
    }
  }, 40_000)
})
