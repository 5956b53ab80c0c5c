/**
 * Every database connection of the service goes quiet (a failover behind a proxy, a dropped NAT entry) eight
 * times while 40 accepted transfers run through the pipeline. Unlike a cut (databaseCut.test.ts), where
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
import { sleep } from "../support/wait.js"

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
    // A silence every 600 ms (each lasts until the watch closes the quiet connections, about half a second, and
    // the pipeline runs on in between), each counting the transfers still running as it comes.
    const runningAtSilence: Array<number> = []
    try {
      for (let silence = 0; silence < SILENCES; silence++) {
        await sleep(silence === 0 ? 20 : 600)
        const running = await admin.query("SELECT count(*)::int AS n FROM transactions WHERE wallet_id = $1 AND status NOT IN ('confirmed', 'failed')", [transfers.wallet.id])
        runningAtSilence.push(running.rows[0].n as number)
        env.proxy.silenceOpen()
      }
    } finally {
      await admin.end()
    }
    // Most silences came while transfers were running (else they prove little).
    expect(runningAtSilence.filter((n) => n > 0).length).toBeGreaterThanOrEqual(SILENCES / 2)

    await expectEachSettledOnce({ ...transfers, withinMs: 45_000 })
  }, 180_000)
})
