/**
 * Every database connection of the service goes quiet (a failover behind a proxy, a dropped NAT entry) up to
 * eight times while 40 accepted transfers run through the pipeline, each time as soon as it moved on. Unlike a cut (databaseCut.test.ts), where
 * PostgreSQL rolls back the statement it was running, a silence lets PostgreSQL commit what it already had and
 * loses only the answer: a claim, a stage transition, a completion may be written with the worker never told.
 * Afterwards every transfer is settled once (none stuck, nothing paid twice, nothing paid by a failure), well
 * within the outbox lease (two minutes here): the pool's watch closes the quiet connections
 * (src/db/silentConnections.ts), each worker gives back what it could not finish, and a shared statement whose
 * answer was lost is not repeated (src/db/statementBatch.ts: a repeated transition found its own change and
 * took it for another worker's, and the transfer was left at `submitting` with its job done).
 */
import { Connection } from "@solana/web3.js"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestLedger } from "../support/ledger.js"
import { type ProxiedService, startServiceThroughProxy } from "../support/proxiedService.js"
import { expectEachSettledOnce, startTransfers } from "../support/settledOnce.js"
import { sleep, waitFor } from "../support/wait.js"

const TRANSFERS = 40
const SILENCES = 8
const LAMPORTS = 1_000_000

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let env: ProxiedService
beforeAll(async () => {
  ledger = await startTestLedger()
  env = await startServiceThroughProxy({
    rpcUrl: ledger.rpcUrl,
    // A lease far longer than the wait below: a job nobody gave back would sit out the lease.
    env: { TX_OUTBOX_MAX_ATTEMPTS: "20", TX_OUTBOX_LEASE_MS: "120000", DATABASE_SILENCE_CHECK_MS: "500" }
  })
})
afterAll(async () => {
  await env?.stop()
  await ledger?.close()
})

describe("every database connection silenced while transfers run", () => {
  it("leaves each transfer settled once, without waiting out a lease", async () => {
    const connection = new Connection(ledger.rpcUrl, "confirmed")
    const transfers = await startTransfers(env.service.baseUrl, connection, TRANSFERS, LAMPORTS)

    const admin = new pg.Client({ connectionString: env.database.url })
    await admin.connect()
    // Each silence lasts until the watch closes the quiet connections (about half a second); the next comes as
    // soon as the pipeline has moved on (a transfer finished), so every silence meets transfers at work, whatever
    // this machine's speed.
    const running = async () =>
      (await admin.query("SELECT count(*)::int AS n FROM transactions WHERE wallet_id = $1 AND status NOT IN ('confirmed', 'failed')", [transfers.wallet.id])).rows[0].n as number
    const runningAtSilence: Array<number> = []
    try {
      await sleep(20)
      for (let silence = 0; silence < SILENCES; silence++) {
        const before = await running()
        if (before === 0) break
        runningAtSilence.push(before)
        env.proxy.silenceOpen()
        await waitFor("the pipeline moving on after a silence", async () => (await running()) < before, 15_000, 20)
      }
    } finally {
      await admin.end()
    }
    // The silences met transfers at work (else they prove little).
    expect(runningAtSilence.length).toBeGreaterThanOrEqual(SILENCES / 2)

    await expectEachSettledOnce({ ...transfers, withinMs: 45_000 })
  }, 180_000)
})
