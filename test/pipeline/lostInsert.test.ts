/**
 * A create whose insert PostgreSQL committed, but whose answer never reached the service (its connection went
 * quiet after the commit). The service knows the id it inserted and reads it on a new connection: the client,
 * which sent no idempotency key and so could not safely send the request again, gets its 201 and the
 * transaction, and the transfer is made once. Before, it got a 503 ("may have been applied") with no id to
 * look for.
 *
 * The insert is made to commit while the connection is silent: an administrator's lock on the wallet's row
 * holds the insert (its foreign key check waits for it), the proxy silences the service's connections, the
 * lock is let go.
 */
import { Connection, Keypair } from "@solana/web3.js"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestLedger } from "../support/ledger.js"
import { commitWithAnswerLost, type ProxiedService, startServiceThroughProxy } from "../support/proxiedService.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const LAMPORTS = 1_000_000

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let env: ProxiedService
beforeAll(async () => {
  ledger = await startTestLedger()
  env = await startServiceThroughProxy({ rpcUrl: ledger.rpcUrl, env: { DATABASE_SILENCE_CHECK_MS: "500" } })
})
afterAll(async () => {
  await env?.stop()
  await ledger?.close()
})

describe("a create whose insert committed with its answer lost", () => {
  it("answers 201 with the transaction it inserted, and the transfer is made once", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey

    const admin = new pg.Client({ connectionString: env.database.url })
    await admin.connect()
    try {
      await admin.query("BEGIN")
      await admin.query("SELECT id FROM wallets WHERE id = $1 FOR UPDATE", [wallet.id])
      const answer = submit(env.service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination.toBase58(), lamports: LAMPORTS } })
      await commitWithAnswerLost(env, admin, "the create's insert")
      const created = await answer

      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const txId = created.body.data.id as string
      const rows = await admin.query("SELECT id FROM transactions WHERE wallet_id = $1", [wallet.id])
      expect(rows.rows.map((row: { id: string }) => row.id)).toEqual([txId])

      const settled = await waitSettled(env.service.baseUrl, txId, 30_000)
      expect(settled.data.status).toBe("confirmed")
      expect(await new Connection(ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(LAMPORTS)
    } finally {
      await admin.query("ROLLBACK").catch(() => undefined)
      await admin.end()
    }
  }, 60_000)
})
