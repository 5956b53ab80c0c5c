/**
 * PostgreSQL ends every connection of the service (a restart, a failover) three times while 30 accepted
 * transfers run through the pipeline, at whatever stage each is: before signing, between the signature and
 * the send, after the bytes reached the ledger, at confirmation. Afterwards every one is settled (none stuck),
 * each destination holds exactly what its transfer moved if it confirmed and nothing if it failed (nothing
 * paid twice, nothing paid by a failure), and the source paid exactly the confirmed amounts and their fees.
 * And none waited out its outbox lease (two minutes here): a worker whose job's write failed because the
 * connection had just been ended writes it again on a new one (actors/pipelineWorkers.ts).
 */
import { Connection } from "@solana/web3.js"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { expectEachSettledOnce, startTransfers } from "../support/settledOnce.js"
import { sleep } from "../support/wait.js"

const TRANSFERS = 30
const LAMPORTS = 1_000_000
// A lease far longer than the wait below: a job its worker failed to give back would sit out the lease.
const env = useServiceWithLedger({ env: { TX_OUTBOX_MAX_ATTEMPTS: "20", TX_OUTBOX_LEASE_MS: "120000" } })

describe("every database connection ended while transfers run", () => {
  it("leaves each transfer settled once: confirmed and paid once, or failed and not paid", async () => {
    const connection = new Connection(env.ledger.rpcUrl, "confirmed")
    const transfers = await startTransfers(env.service.baseUrl, connection, TRANSFERS, LAMPORTS)

    const admin = new pg.Client({ connectionString: env.service.database.url })
    await admin.connect()
    let ended = 0
    const runningAtCut: Array<number> = []
    try {
      for (let cut = 0; cut < 3; cut++) {
        await sleep(cut === 0 ? 20 : 150)
        const running = await admin.query("SELECT count(*)::int AS n FROM transactions WHERE wallet_id = $1 AND status NOT IN ('confirmed', 'failed')", [transfers.wallet.id])
        runningAtCut.push(running.rows[0].n as number)
        const result = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        ended += result.rowCount ?? 0
      }
    } finally {
      await admin.end()
    }
    expect(ended).toBeGreaterThanOrEqual(3)
    // The first cut came while transfers were in the pipeline (else it proves nothing).
    expect(runningAtCut[0]).toBeGreaterThan(0)

    // Settled within 60 s: the workers gave their jobs back although the database was away at that moment.
    await expectEachSettledOnce({ ...transfers, withinMs: 60_000 })
  }, 180_000)
})
