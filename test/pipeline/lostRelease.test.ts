/**
 * A worker gives up its job (the attempt limit) and PostgreSQL commits that, but the answer never reaches the
 * worker (its connection went quiet after the commit). The worker writes the release again on a new connection;
 * that repeat must find its own write and answer "failed", so the transaction is failed visibly ("gave up after
 * 1 attempts"). Taken for another worker's job, it left the transaction `pending` for good: its job failed, and
 * nothing working on it.
 *
 * The release is made to commit while the connection is silent: chaos holds the build for two seconds and then
 * fails it (a retryable failure; one attempt allowed), an administrator's lock on the job row holds the release,
 * the proxy silences the service's connections, the lock is let go.
 */
import pg from "pg"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { commitWithAnswerLost, useServiceThroughProxy } from "../support/proxiedService.js"
import { acceptedSelfTransfer, waitSettled } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const env = useServiceThroughProxy({
  rpcUrl: "http://127.0.0.1:9",
  env: {
    CHAOS_ENABLED: "true",
    TX_PIPELINE_WORKERS: "1",
    TX_OUTBOX_MAX_ATTEMPTS: "1",
    TX_CREATE_WAIT_MS: "0",
    TX_OUTBOX_LEASE_MS: "120000",
    DATABASE_SILENCE_CHECK_MS: "500"
  }
})

describe("a job's release whose answer was lost", () => {
  it("is recognised when written again, and the transaction given up visibly", async () => {
    const client = makeClient(env.service.baseUrl)
    expect((await client.chaos.update({ body: { enabled: true, latencyMs: 2_000, failureRates: { build: 1 } } })).status).toBe(200)
    const txId = await acceptedSelfTransfer(env.service.baseUrl)

    const admin = new pg.Client({ connectionString: env.database.url })
    await admin.connect()
    try {
      const jobOf = async () => (await admin.query("SELECT status, attempts, lease_id FROM outbox_jobs WHERE tx_id = $1", [txId])).rows[0] as { status: string; attempts: number; lease_id: string | null }
      await waitFor("the job claimed", async () => (await jobOf()).status === "processing", 10_000, 20)

      // The release (after chaos fails the build) waits for this lock; its answer will have nowhere to go.
      await admin.query("BEGIN")
      await admin.query("SELECT id FROM outbox_jobs WHERE tx_id = $1 FOR UPDATE", [txId])
      await commitWithAnswerLost(env, admin, "the release")
      // PostgreSQL committed the release: the job failed (the attempt limit), its worker not told.
      await waitFor("the release committed", async () => (await jobOf()).status === "failed", 5_000, 20)
      expect(await jobOf()).toMatchObject({ status: "failed", attempts: 1, lease_id: null })
    } finally {
      await admin.query("ROLLBACK").catch(() => undefined)
      await admin.end()
    }

    const settled = await waitSettled(env.service.baseUrl, txId, 15_000)
    expect(settled.body.data).toMatchObject({ status: "failed", failedAt: "build" })
    expect(settled.body.data.error).toMatch(/gave up after 1 attempts: chaos: injected failure at the build stage/)
    await client.chaos.update({ body: { enabled: false, latencyMs: 0, failureRates: {} } })
  }, 60_000)
})
