/**
 * A create whose insert lost its answer (the connection went quiet while PostgreSQL ran it). The service knows
 * the id it inserted and reads it on a new connection:
 * - the insert committed: the client, which sent no idempotency key and so could not safely send the request
 *   again, gets its 201 and the transaction, and the transfer is made once (it got a 503 with no id before);
 * - the insert rolled back: the 503 names the id, which reads 404, so the client knows it may send the request
 *   again; that one is made, once.
 *
 * The insert is held by an administrator's lock on the wallet's row (its foreign key check waits for it); the
 * proxy silences the service's connections; then the lock is let go (the insert commits) or the insert's
 * backend ended (it rolls back).
 */
import { Connection, Keypair } from "@solana/web3.js"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { startTestLedger } from "../support/ledger.js"
import { commitWithAnswerLost, type ProxiedService, rollbackWithAnswerLost, startServiceThroughProxy } from "../support/proxiedService.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const LAMPORTS = 1_000_000

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let env: ProxiedService
let admin: pg.Client
beforeAll(async () => {
  ledger = await startTestLedger()
  env = await startServiceThroughProxy({ rpcUrl: ledger.rpcUrl, env: { DATABASE_SILENCE_CHECK_MS: "500" } })
  admin = new pg.Client({ connectionString: env.database.url })
  await admin.connect()
})
afterAll(async () => {
  await admin?.end()
  await env?.stop()
  await ledger?.close()
})

/** A transfer without an idempotency key, created while `admin` holds its wallet's row; `lose` then loses the insert's answer. */
const createWithAnswerLost = async (lose: typeof commitWithAnswerLost) => {
  const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
  const destination = Keypair.generate().publicKey
  const body = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination.toBase58(), lamports: LAMPORTS } }
  const rows = async () => (await admin.query("SELECT id FROM transactions WHERE wallet_id = $1", [wallet.id])).rows.map((row: { id: string }) => row.id)
  try {
    await admin.query("BEGIN")
    await admin.query("SELECT id FROM wallets WHERE id = $1 FOR UPDATE", [wallet.id])
    const answer = submit(env.service.baseUrl, body)
    await lose(env, admin, "the create's insert")
    return { created: await answer, body, rows, destination }
  } finally {
    await admin.query("ROLLBACK").catch(() => undefined)
  }
}

const expectPaidOnce = async (txId: string, destination: Keypair["publicKey"]) => {
  const settled = await waitSettled(env.service.baseUrl, txId, 30_000)
  expect(settled.data.status).toBe("confirmed")
  expect(await new Connection(ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(LAMPORTS)
}

describe("a create whose insert lost its answer", () => {
  it("committed: answers 201 with the transaction it inserted, and the transfer is made once", async () => {
    const { created, rows, destination } = await createWithAnswerLost(commitWithAnswerLost)

    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const txId = created.body.data.id as string
    expect(await rows()).toEqual([txId])
    await expectPaidOnce(txId, destination)
  }, 60_000)

  it("rolled back: answers 503 naming the id, which reads 404; sent again, the transfer is made once", async () => {
    const { created, body, rows, destination } = await createWithAnswerLost(rollbackWithAnswerLost)

    expect(created.status, JSON.stringify(created.body)).toBe(503)
    expect(created.headers.get("retry-after")).toBe("1")
    const named = /transaction (\S+) was not found after its insert lost its connection/.exec(String(created.body.error))
    expect(named, String(created.body.error)).not.toBeNull()
    expect((await makeClient(env.service.baseUrl).transactions.get({ params: { txId: named![1]! } })).status).toBe(404)
    expect(await rows()).toEqual([])

    const again = await submit(env.service.baseUrl, body)
    expect(again.status, JSON.stringify(again.body)).toBe(201)
    expect(await rows()).toEqual([again.body.data.id])
    await expectPaidOnce(again.body.data.id as string, destination)
  }, 60_000)
})
