/**
 * The NOTIFY relay of stage events between processes on one PostgreSQL (src/pipeline/stageEvents.ts),
 * seen from "another process": a plain node-postgres client that LISTENs on the channel and speaks the
 * relay's payload, beside the service's StageEvents on the same database. A process relays while it has
 * just started (it cannot know yet who listens) and while another process is heard; alone past
 * PEER_TTL_MS it relays nothing but its heartbeat; and another process's events reach its subscribers.
 * A settled event carries its transaction's record columns (only those: never the signed bytes, the message
 * or the request), so a request waiting in the other process answers without a read; what a relayed event
 * carries is kept beside it, never passed on to stream subscribers.
 */
import { Effect, Layer, Queue } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventWithRow, PEER_TTL_MS, recordOfEvent, type StageEvent, StageEvents } from "../../src/pipeline/stageEvents.js"
import { Notifications } from "../../src/db/notifications.js"
import { ActorRegistry } from "../../src/supervision/actorRegistry.js"
import { RECORD_COLUMNS, type TransactionRow } from "../../src/pipeline/transactionRow.js"
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

/** A confirmed row as a transition returns it, internal columns included. */
const confirmedRow = (txId: string): TransactionRow => ({
  id: txId, tenant_id: "default", wallet_id: "00000000-0000-4000-8000-000000000001", agent_id: null, type: "transfer_sol",
  protocol: "system-program", intent: { destination: "11111111111111111111111111111111", lamports: 5 }, request: { secretish: "request body" },
  request_hash: "hash", gasless: false, require_approval: false, idempotency_key: null, status: "confirmed", stage: "completed",
  failed_at: null, error_code: null, error: null, signature: "sig", signed_transaction: "SIGNED-BYTES", message_base64: "MESSAGE",
  extra_signatures: null, build_facts: null, last_valid_block_height: "10", policy_decision: { decision: "allow", reasons: [] },
  simulation: { logs: ["log"] }, execution_proof: null, delta_guard: null, pre_balance_lamports: "100", post_balance_lamports: "95",
  result: null, approval: null, history: [{ status: "confirmed", stage: "completed", at: "2026-11-24T00:00:00.000Z" }], attempts: 1,
  created_at: new Date("2026-11-24T00:00:00.000Z"), updated_at: new Date("2026-11-24T00:00:01.000Z"), confirmed_at: new Date("2026-11-24T00:00:01.000Z")
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

  it("relays while just started or while another process is heard, nothing else when alone, publishes the others' events, and a settled event carries its record columns only", async () => {
    const { runtime, dispose } = databaseRuntime(database.url, StageEvents.Default.pipe(Layer.provide(Notifications.Default), Layer.provide(ActorRegistry.Default)))
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

      // A settled event published with its row goes out with the record columns, and only those.
      await runtime.runPromise(events.publish(eventWithRow(event("settled-with-row", "confirmed"), confirmedRow("settled-with-row"))))
      expect(await until(() => relayedIds().includes("settled-with-row"), 5_000)).toBe(true)
      const carried = heard.flatMap((payload) => payload.events).find((e) => e.txId === "settled-with-row") as StageEvent & { record?: Record<string, unknown> }
      expect(Object.keys(carried.record ?? {}).sort()).toEqual([...RECORD_COLUMNS].sort())
      expect(JSON.stringify(carried)).not.toMatch(/SIGNED-BYTES|MESSAGE|request body/)

      // Another process's settled event with its record: subscribers get the event alone, the record is kept
      // beside it for waiting requests; a record of another transaction is not taken.
      const [withRecord, mismatched] = await runtime.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const queue = yield* events.subscribe
            const record = { ...carried.record, id: "peer-settled" }
            const sent = [{ ...event("peer-settled", "confirmed"), record }, { ...event("peer-mismatched", "confirmed"), record }]
            yield* Effect.promise(() => peer.query("SELECT pg_notify('stage_events', $1)", [JSON.stringify({ origin: "peer-process", events: sent })]))
            return [yield* Queue.take(queue).pipe(Effect.timeout("5 seconds")), yield* Queue.take(queue).pipe(Effect.timeout("5 seconds"))] as const
          })
        )
      )
      expect(withRecord.txId).toBe("peer-settled")
      expect("record" in withRecord).toBe(false)
      expect(recordOfEvent(withRecord)).toMatchObject({ id: "peer-settled", status: "confirmed", signature: "sig" })
      expect(mismatched.txId).toBe("peer-mismatched")
      expect(recordOfEvent(mismatched)).toBeUndefined()
    } finally {
      await dispose()
    }
  }, 40_000)
})
