/**
 * The service's open database connections go quiet three times while 30 accepted transfers run through the
 * pipeline (a dropped NAT entry, a failover behind a proxy: sockets that never error and never answer).
 * Statements were in flight at each silence, some already committed by PostgreSQL with their answer lost.
 * The pool's watch (src/db/silentConnections.ts) finds those connections and closes them; afterwards every
 * transfer is settled (none stuck on a statement forever, none waiting out its two-minute lease), each
 * destination holds exactly what its transfer moved if it confirmed and nothing if it failed, and the source
 * paid exactly the confirmed amounts and their fees. The service reaches PostgreSQL through a TCP proxy.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import pg from "pg"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { startTestLedger } from "../support/ledger.js"
import { type RunningService, startService } from "../support/service.js"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.js"
import { expectEachSettledOnce } from "../support/settledOnce.js"
import { createWallet, submit } from "../support/transactions.js"
import { sleep } from "../support/wait.js"

const TRANSFERS = 30
const LAMPORTS = 1_000_000

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let database: TestDatabase
let proxy: TcpProxy
let service: RunningService

beforeAll(async () => {
  ledger = await startTestLedger()
  database = await createTestDatabase()
  const target = new URL(database.url)
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432))
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    // A lease far longer than the wait below: a job its worker failed to give back would sit out the lease.
    env: { TX_OUTBOX_MAX_ATTEMPTS: "20", TX_OUTBOX_LEASE_MS: "120000", DATABASE_SILENCE_CHECK_MS: "1000" },
    reuse: { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "custody-test-")), database: { url: proxy.urlFor(database.url), drop: database.drop } }
  })
})

afterAll(async () => {
  await service?.stop()
  await proxy?.close()
  await ledger?.close()
})

describe("every open database connection going quiet while transfers run", () => {
  it("leaves each transfer settled once: confirmed and paid once, or failed and not paid", async () => {
    const wallet = await createWallet(service.baseUrl, 5_000_000_000)
    const connection = new Connection(ledger.rpcUrl, "confirmed")
    const sourceBefore = await connection.getBalance(new PublicKey(wallet.publicKey))
    const destinations = Array.from({ length: TRANSFERS }, () => Keypair.generate().publicKey.toBase58())
    const created = await Promise.all(
      destinations.map((destination) =>
        submit(service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS } })
      )
    )
    expect(created.map((c) => c.status)).toEqual(Array(TRANSFERS).fill(201))

    const admin = new pg.Client({ connectionString: database.url })
    await admin.connect()
    const runningAtSilence: Array<number> = []
    try {
      for (let silence = 0; silence < 3; silence++) {
        await sleep(silence === 0 ? 20 : 1_500)
        const running = await admin.query("SELECT count(*)::int AS n FROM transactions WHERE wallet_id = $1 AND status NOT IN ('confirmed', 'failed')", [wallet.id])
        runningAtSilence.push(running.rows[0].n as number)
        proxy.silenceOpen()
      }
    } finally {
      await admin.end()
    }
    // The first silence came while transfers were in the pipeline (else it proves nothing).
    expect(runningAtSilence[0]).toBeGreaterThan(0)

    const confirmed = await expectEachSettledOnce({
      baseUrl: service.baseUrl,
      connection,
      source: wallet.publicKey,
      sourceBefore,
      lamports: LAMPORTS,
      ids: created.map((c) => c.body.data.id),
      destinations,
      withinMs: 60_000
    })
    expect(confirmed).toBeGreaterThan(0)
  }, 180_000)
})
