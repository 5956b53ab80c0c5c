/**
 * A claim of outbox jobs that PostgreSQL committed but whose answer never reached the worker (its connection
 * went quiet after the commit: a failover behind a proxy, a dropped NAT entry). Nobody works on those jobs;
 * without a give-back they would sit leased until TX_OUTBOX_LEASE_MS passed (two minutes here). The claim is
 * made to commit while the connection is silent: an administrator's lock holds the claim's update of the
 * transaction row, the proxy silences the service's connections, the lock is let go. The pool's watch
 * (src/db/silentConnections.ts) closes the connection, the claim fails as a lost connection, and the outbox
 * gives its jobs back (pending, their claim not counted) within seconds.
 */
import { Effect } from "effect"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { Outbox } from "../../src/pipeline/outbox.js"
import { commitWithAnswerLost, useServiceThroughProxy } from "../support/proxiedService.js"
import { acceptedSelfTransfer } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const env = useServiceThroughProxy({
    rpcUrl: "http://127.0.0.1:9",
    // No worker claims on its own: the test makes the one claim. Creates answer at once.
    env: { TX_PIPELINE_WORKERS: "0", TX_CREATE_WAIT_MS: "0", TX_OUTBOX_LEASE_MS: "120000", DATABASE_SILENCE_CHECK_MS: "500" }
  })

describe("a claim whose answer was lost", () => {
  it("gives its jobs back at once instead of leaving them leased for the lease time", async () => {
    const txId = await acceptedSelfTransfer(env.service.baseUrl)

    const admin = new pg.Client({ connectionString: env.database.url })
    await admin.connect()
    try {
      const jobOf = async () =>
        (await admin.query("SELECT status, attempts, lease_id FROM outbox_jobs WHERE tx_id = $1", [txId])).rows[0] as { status: string; attempts: number; lease_id: string | null }
      expect(await jobOf()).toMatchObject({ status: "pending", attempts: 0, lease_id: null })

      // The claim's update of the transaction waits for this lock; its answer will have nowhere to go.
      await admin.query("BEGIN")
      await admin.query("SELECT id FROM transactions WHERE id = $1 FOR UPDATE", [txId])
      const claim = env.service.runtime.runPromise(Effect.flatMap(Outbox, (outbox) => outbox.claim)).then(
        (job) => ({ outcome: "answered" as const, job }),
        (error: unknown) => ({ outcome: "failed" as const, error })
      )
      await commitWithAnswerLost(env, admin, "the claim")
      // PostgreSQL committed the claim: the job is leased, to a worker that will never hear of it.
      await waitFor("the claim committed", async () => (await jobOf()).status === "processing", 5_000, 20)

      expect((await claim).outcome).toBe("failed")
      await waitFor("the job given back", async () => (await jobOf()).status === "pending", 10_000, 50)
      expect(await jobOf()).toMatchObject({ status: "pending", attempts: 0, lease_id: null })
      const row = await admin.query("SELECT attempts FROM transactions WHERE id = $1", [txId])
      expect(row.rows[0].attempts).toBe(0)
    } finally {
      await admin.query("ROLLBACK").catch(() => undefined)
      await admin.end()
    }
    // The given-back job is claimed again at once (on a new connection).
    const again = await env.service.runtime.runPromise(Effect.flatMap(Outbox, (outbox) => outbox.claim))
    expect(again?.tx_id).toBe(txId)
  }, 60_000)
})
