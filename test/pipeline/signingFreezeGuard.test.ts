/**
 * The signer's freeze guard (src/wallet/signingFreezes.ts guardSigning): a signing batch takes its tenants'
 * freeze locks (shared), then reads the freezes covering its transactions, and signs while it holds the locks.
 * What an operator relies on (docs/decisions/freeze.md "[commit]"): a freeze that commits while a batch waits
 * for its lock is seen by that batch, so nothing of the frozen scope is signed after the freeze committed. The
 * read must be a statement that starts after the lock is granted (a statement's snapshot is taken when it
 * starts): a guard that read the freezes in the statement that waited would sign this transfer (checked).
 *
 * An administrator's connection does what a freeze does (takes the tenant's lock exclusively, inserts the
 * freeze) and holds it while a transfer reaches the signer; the signer waits; the freeze commits; the transfer
 * fails naming the freeze, and the ledger receives nothing.
 */
import { Connection, Keypair } from "@solana/web3.js"
import pg from "pg"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestLedger } from "../support/ledger.js"
import { type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitTerminal } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const FREEZE_LOCK_CLASS = 34034
/** This database's waiters only: other test files' databases on the same server take the same lock class. */
const ADVISORY_WAITERS = `
  SELECT pid FROM pg_locks
  WHERE locktype = 'advisory' AND classid = $1 AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService
let admin: pg.Client
beforeAll(async () => {
  ledger = await startTestLedger()
  service = await startService({ rpcUrl: ledger.rpcUrl })
  admin = new pg.Client({ connectionString: service.database.url })
  await admin.connect()
}, 120_000)
afterAll(async () => {
  await admin?.end()
  await service?.stop()
  await ledger?.close()
})

const advisoryWaiters = async (client: pg.Client) => {
  await client.query("SELECT pg_stat_clear_snapshot()")
  return (await client.query(ADVISORY_WAITERS, [FREEZE_LOCK_CLASS])).rowCount ?? 0
}

/** What a freeze commits, in `client`'s open SQL transaction: the tenant's lock taken exclusively, then the row. */
const freezeInOpenTransaction = async (client: pg.Client, freeze: { tenantId: string; scope: string; targetId: string }) => {
  const id = randomUUID()
  await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [FREEZE_LOCK_CLASS, freeze.tenantId])
  await client.query(
    `INSERT INTO signing_freezes (id, tenant_id, scope, target_id, reason, frozen_by, frozen_at)
     VALUES ($1, $2, $3, $4, 'guard test', 'test', clock_timestamp())`,
    [id, freeze.tenantId, freeze.scope, freeze.targetId]
  )
  return id
}

describe("the signer's freeze guard", () => {
  it("a freeze that commits while the signer waits for its lock refuses the transfer, naming the freeze; nothing reaches the ledger", async () => {
    const wallet = await createWallet(service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey
    let freezeId = ""
    try {
      await admin.query("BEGIN")
      freezeId = await freezeInOpenTransaction(admin, { tenantId: "default", scope: "wallet", targetId: wallet.id })
      // Accepted (the freeze is not committed yet), then held at the signer behind the freeze's lock.
      const created = await submit(service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination.toBase58(), lamports: 1_000_000 } })
      expect(created.status).toBe(201)
      await waitFor("the signer waiting for the freeze lock", async () => (await advisoryWaiters(admin)) === 1, 30_000, 20)
      await admin.query("COMMIT")
      const tx = (await waitTerminal(service.baseUrl, created.body.data.id)).data
      expect(tx.status).toBe("failed")
      expect(tx.error).toContain(freezeId)
      expect(tx.signature ?? null).toBeNull()
    } finally {
      await admin.query("ROLLBACK").catch(() => undefined)
      await admin.query("UPDATE signing_freezes SET unfrozen_at = now(), unfrozen_by = 'test' WHERE id = $1", [freezeId])
    }
    expect(await new Connection(ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(0)
  }, 90_000)
})
