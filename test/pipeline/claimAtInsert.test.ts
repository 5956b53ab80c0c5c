/**
 * A create in a process with an idle pipeline worker claims its outbox job in its own insert and hands it to
 * that worker in memory (src/pipeline/jobHandoff.ts): no claim statement and no wait for one. Seen as an
 * operator sees it: the create's answer already counts the run's attempt, the job is leased from then on, and it
 * runs once. A create that finds every worker busy leaves its job pending for the next free worker, as before.
 *
 * One worker; it is kept busy by holding the signing of the default tenant (an administrator takes the freeze
 * lock, which the signer shares while it signs).
 */
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useProxiedServiceWithLedger, waitForLockWaiters } from "../support/proxiedService.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useProxiedServiceWithLedger({ env: { TX_PIPELINE_WORKERS: "1" } })

/** The freeze lock's class (src/wallet/signingFreezes.ts). */
const FREEZE_LOCK_CLASS = 34034

const transferOf = (wallet: { id: string }) => ({
  walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 }
})

const jobOf = async (txId: string) =>
  (await env.admin.query("SELECT status, attempts, lease_id FROM outbox_jobs WHERE tx_id = $1", [txId])).rows as Array<{ status: string; attempts: number; lease_id: string | null }>

describe("a job claimed by its create", () => {
  it("goes to the idle worker at once; with the worker busy, the next create's job waits pending; each runs once", async () => {
    const wallet = await createWallet(env.service.baseUrl, 100_000_000)
    try {
      await env.admin.query("BEGIN")
      await env.admin.query("SELECT pg_advisory_xact_lock($1, hashtext('default'))", [FREEZE_LOCK_CLASS])

      const first = await submit(env.service.baseUrl, transferOf(wallet))
      expect(first.status, JSON.stringify(first.body)).toBe(201)
      const firstId = first.body.data.id as string
      // Claimed by the insert itself: the answer counts the attempt, and the job is leased, never pending.
      expect(first.body.data.attempts).toBe(1)
      expect(await jobOf(firstId)).toEqual([expect.objectContaining({ status: "processing", attempts: 1, lease_id: expect.any(String) })])

      // The worker runs the first transfer up to its signing, where it waits for the lock: no worker is idle now.
      await waitForLockWaiters(env.admin, "the signer")
      const second = await submit(env.service.baseUrl, transferOf(wallet))
      expect(second.status, JSON.stringify(second.body)).toBe(201)
      const secondId = second.body.data.id as string
      expect(second.body.data.attempts).toBe(0)
      expect(await jobOf(secondId)).toEqual([{ status: "pending", attempts: 0, lease_id: null }])

      await env.admin.query("COMMIT")
      for (const txId of [firstId, secondId]) {
        const settled = await waitSettled(env.service.baseUrl, txId, 30_000)
        expect(settled.data.status, settled.data.error).toBe("confirmed")
        expect(settled.data.attempts).toBe(1)
        expect(await jobOf(txId)).toEqual([{ status: "done", attempts: 1, lease_id: null }])
      }
    } finally {
      await env.admin.query("ROLLBACK").catch(() => undefined)
    }
  }, 60_000)
})
