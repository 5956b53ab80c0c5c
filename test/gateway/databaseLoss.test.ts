/**
 * What a caller sees while the database's connections are lost (a PostgreSQL restart, a failover, an
 * administrator ending them): a read that met a dead connection runs again on a new one, so clients
 * polling through ten cuts only ever read 200; while the database cannot be reached at all, reads and
 * writes answer 503 PIPELINE_ERROR with retry-after (not a 500 "internal error"), and 200 again once it is
 * back; and when new connections are never answered (an address that stopped answering), a request
 * answers 503 within seconds instead of waiting for TCP's own timeout; and when the open connections go
 * quiet mid-statement (a dropped NAT entry), no request waits forever: each
 * is answered once the quiet connections are found and replaced. The service reaches its database through
 * a TCP proxy here, which can refuse, swallow or silence connections.
 */
import pg from "pg"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { useServiceThroughProxy } from "../support/proxiedService.js"
import { createWallet, submit } from "../support/transactions.js"
import { sleep, waitFor } from "../support/wait.js"

const env = useServiceThroughProxy({
    // No ledger is read here: wallets are created unfunded.
    rpcUrl: "http://127.0.0.1:9",
    // Statements unanswered for a second are looked up (10 s by default).
    env: { DATABASE_SILENCE_CHECK_MS: "1000" }
  })

describe("lost database connections", () => {
  it("are not seen by readers: eight clients polling through ten cuts read only 200", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const client = makeClient(env.service.baseUrl)
    const admin = new pg.Client({ connectionString: env.database.url })
    await admin.connect()
    const statuses = new Map<number, number>()
    const refusals: Array<string> = []
    let polling = true
    const pollers = Array.from({ length: 8 }, async () => {
      while (polling) {
        const answer = await client.wallets.get({ params: { walletId: wallet.id } })
        statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
        if (answer.status === 200) expect(answer.data?.id).toBe(wallet.id)
        else refusals.push(`${answer.status} ${JSON.stringify(answer.body)}`)
      }
    })
    let ended = 0
    try {
      for (let cut = 0; cut < 10; cut++) {
        await sleep(250)
        const result = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        ended += result.rowCount ?? 0
      }
    } finally {
      polling = false
      await Promise.all(pollers)
      await admin.end()
    }
    expect(ended).toBeGreaterThanOrEqual(10)
    expect([...statuses.keys()], refusals.slice(0, 3).join("\n")).toEqual([200])
    expect(statuses.get(200)).toBeGreaterThan(20)
  })

  it("answers 503 with retry-after while the database cannot be reached, and 200 once it is back", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const client = makeClient(env.service.baseUrl)
    env.proxy.refuse()
    try {
      const read = await client.wallets.get({ params: { walletId: wallet.id } })
      expect(read.status).toBe(503)
      expect(read.headers.get("retry-after")).toBe("1")
      expect(read.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "gateway", error: "Database unavailable; retry shortly" })
      const write = await submit(env.service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: wallet.publicKey, lamports: 1 } })
      expect(write.status).toBe(503)
      // A write's statement may have committed before its answer was lost: the answer says how to retry safely.
      expect(write.body).toMatchObject({ errorCode: "PIPELINE_ERROR", error: expect.stringMatching(/^Database unavailable; the request may have been applied: retry shortly with the same idempotencyKey/) })
    } finally {
      env.proxy.admit()
    }
    await waitFor("reads answering 200 again", async () => (await client.wallets.get({ params: { walletId: wallet.id } })).status === 200, 10_000, 100)
  })

  it("answers 503 within seconds when new connections are never answered, and 200 once they are", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const client = makeClient(env.service.baseUrl)
    env.proxy.blackhole()
    try {
      const started = Date.now()
      const read = await client.wallets.get({ params: { walletId: wallet.id } })
      const elapsed = Date.now() - started
      expect(read.status).toBe(503)
      expect(read.body).toMatchObject({ errorCode: "PIPELINE_ERROR", error: "Database unavailable; retry shortly" })
      // Each connect gives up after CONNECT_TIMEOUT_MS (5 s); the read tries twice, maybe behind the actors' own.
      expect(elapsed).toBeLessThan(30_000)
    } finally {
      env.proxy.admit()
    }
    await waitFor("reads answering 200 again", async () => (await client.wallets.get({ params: { walletId: wallet.id } })).status === 200, 15_000, 100)
  }, 60_000)

  it("answers every reader when the open connections go quiet mid-statement, and 200 once they are replaced", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const client = makeClient(env.service.baseUrl)
    const answers: Array<{ status: number; ms: number }> = []
    let polling = true
    let finished = 0
    const pollers = Array.from({ length: 4 }, async () => {
      while (polling) {
        const started = Date.now()
        const answer = await client.wallets.get({ params: { walletId: wallet.id } })
        answers.push({ status: answer.status, ms: Date.now() - started })
      }
      finished++
    })
    await sleep(300)
    env.proxy.silenceOpen()
    await sleep(6_000)
    polling = false
    await Promise.race([Promise.all(pollers), sleep(20_000)])
    // Without the watch the pollers that met a quiet connection are still waiting here.
    expect(finished).toBe(4)
    expect(answers.filter((a) => a.ms > 8_000)).toEqual([])
    // The silence met reads in flight (they waited for the watch), and they were answered.
    expect(answers.filter((a) => a.ms >= 900).length).toBeGreaterThan(0)
    expect(answers.filter((a) => a.status !== 200 && a.status !== 503)).toEqual([])
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(answers.length / 2)
    await waitFor("reads answering 200 again", async () => (await client.wallets.get({ params: { walletId: wallet.id } })).status === 200, 15_000, 100)
  }, 60_000)
})
