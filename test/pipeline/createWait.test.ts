/**
 * Create answers with the state reached (issue 17 item 1, issue 18 item 1): without a query parameter
 * POST /transactions waits for the outcome (201 confirmed, 202 at the approval gate, the failure
 * envelope, each the record a read gives), `?waitMs=0` answers `pending` at once; a waiting request is
 * woken by the stage event and issues no SQL while it waits (counted at node-postgres, which every statement goes through); and one
 * key may hold at most TX_MAX_WAITING_PER_KEY waiting requests (an explicit wait beyond is a 429 that
 * creates nothing, the default wait then answers at once).
 */
import { Keypair } from "@solana/web3.js"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { LISTENER_PING } from "../../src/db/notifications.js"

import { createWallet, submit, waitSettled } from "../support/transactions.js"

const MAX_WAITING = 3
const env = useServiceWithLedger({
  env: {
    CHAOS_ENABLED: "true",
    TX_MAX_WAITING_PER_KEY: String(MAX_WAITING),
    // Nothing in the background polls the database while the no-polling window is measured.
    TX_OUTBOX_POLL_MS: "60000",
    TX_SETTLEMENT_SWEEP_MS: "60000",
    AGENT_LOOP_INTERVAL_MS: "60000",
    WEBHOOK_POLL_MS: "60000"
  }
})

let wallet: { id: string; publicKey: string }
beforeAll(async () => {
  wallet = await createWallet(env.service.baseUrl, 2_000_000_000)
}, 60_000)

const transferBody = (lamports: number, extra: Record<string, unknown> = {}) => ({
  walletId: wallet.id, type: "transfer_sol", protocol: "system-program",
  intent: { destination: Keypair.generate().publicKey.toBase58(), lamports }, ...extra
})
const create = (body: Record<string, unknown>, query = "") => submit(env.service.baseUrl, body, undefined, query)

describe("POST /transactions without a query parameter", () => {
  it("answers 201 confirmed for a transfer that confirms", async () => {
    const created = await create(transferBody(1_000_000))
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ status: "success", errorCode: null, data: { status: "confirmed", awaitingApproval: false } })
    expect(created.body.data.signature).toEqual(expect.any(String))
    // The answer is the row as the pipeline settled it (no read after the wake): the very record a read gives.
    const read = await makeClient(env.service.baseUrl).transactions.get({ params: { txId: created.body.data.id } })
    expect(created.body.data).toEqual(read.body.data)
  })

  it("answers 202 with awaitingApproval true for a transfer that needs approval", async () => {
    const created = await create(transferBody(1_000_000, { requireApproval: true }))
    expect(created.status).toBe(202)
    expect(created.body).toMatchObject({ status: "success", data: { status: "approval_gate", awaitingApproval: true } })
  })

  it("answers 201 pending at once with ?waitMs=0", async () => {
    const created = await create(transferBody(1_000_000), "?waitMs=0")
    expect(created.status).toBe(201)
    expect(created.body.data.status).toBe("pending")
    expect((await waitSettled(env.service.baseUrl, created.body.data.id)).body.data.status).toBe("confirmed")
  })

  it("answers the POLICY_VIOLATION envelope for a denied transfer", async () => {
    const denied = await createWallet(env.service.baseUrl, 1_000_000_000)
    const policy = await makeClient(env.service.baseUrl).policies.create({ body: {
      walletId: denied.id, name: "tiny", rules: [{ type: "spending_limit", maxLamportsPerTx: 1_000 }]
    } })
    expect(policy.status).toBe(201)
    const created = await create({ ...transferBody(1_000_000), walletId: denied.id })
    expect(created.status).toBe(403)
    expect(created.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy", data: { status: "failed" } })
    expect(created.body.error).toContain("maxLamportsPerTx")
  })

  it("refuses ?waitMs= out of range naming the parameter", async () => {
    const refused = await create(transferBody(1_000_000), "?waitMs=30001")
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(refused.body.error).toContain("waitMs")
  })
})

/** The key ring's reload of every active key (keys/keyRepo.ts activeKeys). */
const KEY_RING_RELOAD = /FROM api_keys WHERE revoked_at IS NULL AND \(expires_at IS NULL OR expires_at > now\(\)\)/
/**
 * The batched writers' flushes (audit/metricCounters.ts, audit/auditLog.ts, keys/keyUsage.ts), each on its own
 * cadence whatever waits: the chaos update's audit event and the creates' counters land up to 2 s later.
 */
const BATCHED_FLUSH = /^\s*(INSERT INTO (metric_counters|audit_events) |UPDATE api_keys AS k SET last_used_at)/

describe("waiting requests", () => {
  const statements = { count: 0, texts: [] as Array<string> }
  const original = pg.Client.prototype.query
  beforeAll(() => {
    // Every statement of the service (embedded or PostgreSQL) goes through node-postgres' Client.query.
    pg.Client.prototype.query = function (this: pg.Client, ...args: Array<unknown>) {
      // The stage relay's and the key ring's heartbeats (every 1-2 s, waiting or not; stageEvents.ts, keys/issuedKeys.ts),
      // the LISTEN connection's ping (every 5 s: CI once saw it inside the window; db/notifications.ts)
      // are not the waiting requests' work, nor the key ring's reload of the active keys (it reloads while its
      // heartbeat is late, which a loaded machine can make it; a request finds its key in memory).
      const first = args[0] as string | { readonly text?: string } | undefined
      const text = typeof first === "string" ? first : first?.text
      if (text !== "SELECT pg_notify($1, $2)" && text !== LISTENER_PING && !KEY_RING_RELOAD.test(text ?? "") && !BATCHED_FLUSH.test(text ?? "")) {
        statements.count++
        statements.texts.push((text ?? "").trim().slice(0, 120))
      }
      return (original as (...a: Array<unknown>) => unknown).apply(this, args)
    } as typeof original
  })
  afterAll(async () => {
    pg.Client.prototype.query = original
    await makeClient(env.service.baseUrl).chaos.update({ body: { enabled: false, latencyMs: 0 } })
  })

  it("wait without SQL; at the bound a running transaction answers 201 as it is; a key holds at most its limit", async () => {
    // 12 s of injected latency before the first stage keeps the transfers running (and the pipeline
    // idle) for longer than this test: only the waiting requests could touch the database meanwhile.
    expect((await makeClient(env.service.baseUrl).chaos.update({ body: { enabled: true, latencyMs: 12_000 } })).status).toBe(200)
    const started = Date.now()
    const waiting = Array.from({ length: MAX_WAITING }, () => create(transferBody(1_000_000), "?waitMs=8000"))
    await new Promise((resolve) => setTimeout(resolve, 1_000))

    const before = statements.count
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    const during = statements.count - before
    // Polling the row every 25 ms would be 3 x 80 statements here; none is issued while waiting.
    expect(statements.texts.slice(before, before + during)).toEqual([])

    // The key is at its limit: an explicit wait is refused and creates nothing; the default wait answers at once.
    const listed = async () => (await makeClient(env.service.baseUrl).transactions.listByWallet({ params: { walletId: wallet.id }, query: { limit: "100" } })).body.data.total as number
    const total = await listed()
    const refused = await create(transferBody(1_000_000), "?waitMs=1000")
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "gateway" })
    expect(refused.body.error).toContain(`${MAX_WAITING} requests waiting`)
    expect(await listed()).toBe(total)
    const atOnce = await create(transferBody(1_000_000))
    expect(atOnce.status).toBe(201)
    expect(atOnce.body.data.status).toBe("pending")
    // The count is real: the requests above went through the database.
    expect(statements.count - before - during).toBeGreaterThan(0)

    // At their bound (8 s) the waiting creates answer 201 with the state reached, still running.
    const answered = await Promise.all(waiting)
    expect(Date.now() - started).toBeGreaterThanOrEqual(8_000)
    for (const response of answered) {
      expect(response.status).toBe(201)
      expect(["pending", "simulating"]).toContain(response.body.data.status)
    }
    // The slots are free again.
    expect((await create(transferBody(1_000_000), "?waitMs=1")).status).toBe(201)
  }, 60_000)
})
