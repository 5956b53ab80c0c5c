/**
 * A waiting create across a gap in other processes' stage events: its transaction is settled by another
 * process (here, straight in SQL: no event reaches this one) while this process's LISTEN connection is
 * down. When the connection is replaced, every waited-for transaction is read once, and the request
 * answers with the settled record at once, not at its time limit (20 s here). No pipeline worker runs in
 * this process, so nothing else settles it; no ledger is needed.
 */
import { Keypair } from "@solana/web3.js"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LISTENER_PING } from "../../src/db/notifications.js"
import { type RunningService, startService } from "../support/service.js"
import { createWallet, submit } from "../support/transactions.js"
import { sleep, waitFor } from "../support/wait.js"

let service: RunningService
let admin: pg.Client

beforeAll(async () => {
  service = await startService({ rpcUrl: "http://127.0.0.1:9", env: { TX_PIPELINE_WORKERS: "0", TX_OUTBOX_POLL_MS: "60000" } })
  admin = new pg.Client({ connectionString: service.database.url })
  await admin.connect()
}, 120_000)

afterAll(async () => {
  await admin?.end()
  await service?.stop()
})

describe("a create waiting when its transaction settles elsewhere during a LISTEN gap", () => {
  it("answers with the settled record once the connection is replaced, not at its time limit", async () => {
    const wallet = await createWallet(service.baseUrl)
    const started = Date.now()
    const waiting = submit(
      service.baseUrl,
      { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000 } },
      undefined,
      "?waitMs=20000"
    )
    let txId = ""
    await waitFor("the transaction row", async () => {
      txId = (await admin.query("SELECT id FROM transactions WHERE wallet_id = $1", [wallet.id])).rows[0]?.id ?? ""
      return txId !== ""
    }, 10_000, 20)
    await sleep(300)

    // Another process fails it; its relayed event is lost to this one, whose LISTEN connection is cut meanwhile.
    await admin.query(
      "UPDATE transactions SET status = 'failed', failed_at = 'build', error_code = 'PIPELINE_ERROR', error = 'settled by another process', updated_at = now() WHERE id = $1",
      [txId]
    )
    const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND (query ILIKE 'LISTEN %' OR query = $1) AND pid <> pg_backend_pid()", [LISTENER_PING])
    expect(cut.rowCount).toBe(1)

    const answer = await waiting
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(answer.body).toMatchObject({ errorCode: "PIPELINE_ERROR", data: { id: txId, status: "failed", error: "settled by another process" } })
  }, 60_000)
})
