/**
 * A create whose insert lost its answer, from a client that sent no idempotency key (and so could not safely
 * send the request again). The service made the transaction's id, which is the row's key: it reads the row on a
 * new connection, and when it is not there sends the same insert again, so the create ends once whatever the
 * first insert did:
 * - committed with its answer lost (the connection went quiet): 201 with that transaction;
 * - rolled back, unheard (its backend ended while the connection was quiet): the repeat writes it, 201;
 * - still running when the service's side of the connection was reset (a proxy dropped it; the server went on):
 *   the repeat waits for the first insert, meets its row, and answers 201 with it.
 * Each time there is one transaction, and the transfer is paid once. All three answered 503 before. A first
 * insert held past the repeat's bound (5 s) gets the 503 "may have been applied", and still one transaction.
 *
 * The insert is held by an administrator's lock on the wallet's row (its foreign key check waits for it).
 */
import { Connection, Keypair } from "@solana/web3.js"
import type pg from "pg"
import { describe, expect, it } from "vitest"
import { commitWithAnswerLost, type ProxiedService, rollbackWithAnswerLost, useProxiedServiceWithLedger, waitForLockWaiters } from "../support/proxiedService.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const LAMPORTS = 1_000_000

const env = useProxiedServiceWithLedger({ env: { DATABASE_SILENCE_CHECK_MS: "500" } })

/** A transfer without an idempotency key, created while the administrator holds its wallet's row; `lose` then loses the insert's answer. */
const createWithAnswerLost = async (lose: typeof commitWithAnswerLost) => {
  const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
  const destination = Keypair.generate().publicKey
  const body = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination.toBase58(), lamports: LAMPORTS } }
  const rows = async () => (await env.admin.query("SELECT id FROM transactions WHERE wallet_id = $1", [wallet.id])).rows.map((row: { id: string }) => row.id)
  try {
    await env.admin.query("BEGIN")
    await env.admin.query("SELECT id FROM wallets WHERE id = $1 FOR UPDATE", [wallet.id])
    const answer = submit(env.service.baseUrl, body)
    await lose(env, env.admin, "the create's insert")
    return { created: await answer, rows, destination }
  } finally {
    await env.admin.query("ROLLBACK").catch(() => undefined)
  }
}

/** The insert still runs on the server while its client side is reset; the repeat waits for it; then the lock goes. */
const resetWhileRunning = async (proxied: ProxiedService, client: pg.Client, waiter: string) => {
  await waitForLockWaiters(client, waiter)
  proxied.proxy.resetClients()
  await waitForLockWaiters(client, `${waiter} and its repeat`, 2)
  await client.query("COMMIT")
}

/** The same, but the first insert is held past the repeat's bound (5 s) before the lock goes. */
const resetWhileStuck = async (proxied: ProxiedService, client: pg.Client, waiter: string) => {
  await waitForLockWaiters(client, waiter)
  proxied.proxy.resetClients()
  await waitForLockWaiters(client, `${waiter} and its repeat`, 2)
  await waitForLockWaiters(client, `${waiter} alone again`, 1)
  await client.query("COMMIT")
}

describe("a create whose insert lost its answer", () => {
  for (const [what, lose] of [
    ["committed", commitWithAnswerLost],
    ["rolled back", rollbackWithAnswerLost],
    ["still running", resetWhileRunning]
  ] as const) {
    it(`${what}: answers 201 with one transaction, and the transfer is paid once`, async () => {
      const { created, rows, destination } = await createWithAnswerLost(lose)

      expect(created.status, JSON.stringify(created.body)).toBe(201)
      const txId = created.body.data.id as string
      expect(await rows()).toEqual([txId])
      const settled = await waitSettled(env.service.baseUrl, txId, 30_000)
      expect(settled.data.status).toBe("confirmed")
      expect(await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(LAMPORTS)
    }, 60_000)
  }

  it("still running past the repeat's bound: answers 503 'may have been applied', and there is one transaction", async () => {
    const { created, rows } = await createWithAnswerLost(resetWhileStuck)

    expect(created.status, JSON.stringify(created.body)).toBe(503)
    expect(String(created.body.error)).toMatch(/may have been applied/)
    // The first insert goes on once the lock goes: one transaction, the only one there will be.
    await waitFor("the first insert committed", async () => (await rows()).length > 0, 5_000, 20)
    expect(await rows()).toHaveLength(1)
  }, 60_000)
})
