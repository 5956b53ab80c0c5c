/**
 * An approve, a reject or a retry that PostgreSQL committed but whose answer never reached the service: the
 * service answers 503 (it cannot know what the commit did), and the SDK must end with what was done, not a
 * refusal. Before, the repeat of an approve was refused (400 "not awaiting approval" once it had released
 * signing, or 409 "already approved"), so the SDK's approve threw for an approval that was given; a retry's
 * 503 threw although the new attempt ran. Each time the transfer is paid once, with one approval or one retry.
 *
 * The commit is held by a test-only deferred trigger that waits for an advisory lock the administrator holds
 * (fired when a transaction leaves the approval gate, or a failed one starts again); once it waits, the service's connections are silenced
 * and the lock let go, so the commit completes with its answer lost.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { beforeAll, describe, expect, it } from "vitest"
import { CustodyClient, type Transaction } from "../../sdk/src/index.js"
import { defined } from "../support/defined.js"
import { commitWithAnswerLost, useProxiedServiceWithLedger } from "../support/proxiedService.js"
import { ADMIN_KEY } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const LAMPORTS = 1_000_000
const HOLD_LOCK = 731_731

// Chaos fails a build at once (one outbox attempt), so the retry's test has a failed transaction to retry.
const env = useProxiedServiceWithLedger({ env: { DATABASE_SILENCE_CHECK_MS: "500", CHAOS_ENABLED: "true", TX_OUTBOX_MAX_ATTEMPTS: "1" } })
beforeAll(async () => {
  await env.admin.query(`
    CREATE FUNCTION test_hold_decision_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock(${HOLD_LOCK}); RETURN NULL; END $$`)
  await env.admin.query(`
    CREATE CONSTRAINT TRIGGER test_hold_decision_commit AFTER UPDATE ON transactions DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN ((OLD.status = 'approval_gate' AND NEW.status <> 'approval_gate') OR (OLD.status = 'failed' AND NEW.status = 'pending')) EXECUTE FUNCTION test_hold_decision_commit()`)
})

/**
 * An SDK client that records each HTTP status it met, in order (its retries hide them from its caller); a
 * request `unsent` picks fails the first time before it leaves (a connection refused).
 */
const recordingClient = (unsent: (url: string, init?: RequestInit) => boolean = () => false) => {
  const statuses: Array<number> = []
  let refused = 0
  const custody = new CustodyClient({
    baseUrl: env.service.baseUrl,
    apiKey: ADMIN_KEY,
    fetch: async (input, init) => {
      if (refused === 0 && unsent(String(input), init)) {
        refused++
        throw new TypeError("fetch failed: connect ECONNREFUSED")
      }
      const response = await fetch(input, init)
      statuses.push(response.status)
      return response
    }
  })
  return { custody, statuses, refused: () => refused }
}

/** The SDK met the lost answer (503: another may follow while the pool replaces its silenced connections), then an answer. */
const expectLostThenAnswered = (statuses: ReadonlyArray<number>) => {
  expect(statuses[0]).toBe(503)
  expect(statuses.at(-1)).toBe(200)
  expect(statuses.slice(0, -1).every((status) => status === 503), statuses.join(", ")).toBe(true)
}

/** A transfer the build failed (chaos), as the SDK saw it. */
const failedTransfer = async (custody: CustodyClient) => {
  const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
  const destination = Keypair.generate().publicKey
  await custody.transport.data("PUT", "/api/v1/chaos", { body: { enabled: true, failureRates: { build: 1 } } })
  const failed = await custody.transactions.createAndWait(
    { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination.toBase58(), lamports: LAMPORTS } },
    { confirmationRetries: 0 }
  )
  expect(failed).toMatchObject({ status: "failed", errorCode: "PIPELINE_ERROR", failedAt: "build" })
  await custody.transport.data("PUT", "/api/v1/chaos", { body: { enabled: false, failureRates: { build: 0 } } })
  return { failed, destination }
}

/** It confirms, paid once, after exactly one retry. */
const confirmedAfterOneRetry = async (txId: string, destination: PublicKey) => {
  const settled = await waitSettled(env.service.baseUrl, txId, 30_000)
  expect(settled.data.status).toBe("confirmed")
  expect(await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(LAMPORTS)
  const retries = await env.admin.query("SELECT action FROM outbox_jobs WHERE tx_id = $1 AND action = 'retry'", [txId])
  expect(retries.rowCount).toBe(1)
}

const gatedTransfer = async () => {
  const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
  const destination = Keypair.generate().publicKey
  const created = await submit(
    env.service.baseUrl,
    { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination: destination.toBase58(), lamports: LAMPORTS } },
    undefined,
    "?waitMs=20000"
  )
  const tx = defined(created.data, "the gated transaction") as Transaction
  expect(tx.status).toBe("approval_gate")
  return { tx, destination }
}

/** Runs `decide` while the administrator holds the decision's commit, then loses that commit's answer. */
const decideWithAnswerLost = async <A>(decide: () => Promise<A>): Promise<A> => {
  await env.admin.query("BEGIN")
  try {
    await env.admin.query("SELECT pg_advisory_xact_lock($1)", [HOLD_LOCK])
    const answer = decide()
    await commitWithAnswerLost(env, env.admin, "the decision's commit")
    return await answer
  } finally {
    await env.admin.query("ROLLBACK").catch(() => undefined)
  }
}

const auditTypes = async (txId: string) =>
  (await env.admin.query("SELECT event_type FROM audit_events WHERE tx_id = $1 ORDER BY seq", [txId])).rows.map((row: { event_type: string }) => row.event_type)

describe("an approve, reject or retry whose commit lost its answer", () => {
  it("approve: the SDK's repeat is answered with the approved transaction, and the transfer is paid once", async () => {
    const { tx, destination } = await gatedTransfer()
    const { custody, statuses } = recordingClient()

    const approved = await decideWithAnswerLost(() => custody.transactions.approve(tx.id, { previewHash: defined(tx.approval?.previewHash, "previewHash") }))

    expectLostThenAnswered(statuses)
    expect(approved.id).toBe(tx.id)
    expect(approved.status).not.toBe("approval_gate")
    expect(approved.approval).toMatchObject({ status: "approved", approvals: [{ previewHash: tx.approval?.previewHash }] })
    const settled = await waitSettled(env.service.baseUrl, tx.id, 30_000)
    expect(settled.data.status).toBe("confirmed")
    expect(await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(LAMPORTS)
    const jobs = await env.admin.query("SELECT action FROM outbox_jobs WHERE tx_id = $1 AND action = 'approve'", [tx.id])
    expect(jobs.rowCount).toBe(1)
    expect((await auditTypes(tx.id)).filter((type) => type === "transaction.approved")).toHaveLength(1)
  }, 60_000)

  it("reject: the SDK's repeat is answered with the rejected transaction, and nothing is signed", async () => {
    const { tx, destination } = await gatedTransfer()
    const { custody, statuses } = recordingClient()

    const rejected = await decideWithAnswerLost(() => custody.transactions.reject(tx.id, "not today"))

    expectLostThenAnswered(statuses)
    expect(rejected).toMatchObject({ id: tx.id, status: "failed", errorCode: "POLICY_VIOLATION", approval: { status: "rejected", reason: "not today" } })
    expect((await auditTypes(tx.id)).filter((type) => type === "transaction.failed")).toHaveLength(1)
    expect(await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(0)
  }, 60_000)

  it("retry: the SDK finds the retry taken instead of failing, and the transfer is paid once", async () => {
    const { custody, statuses } = recordingClient()
    const { failed, destination } = await failedTransfer(custody)
    statuses.length = 0

    const retried = await decideWithAnswerLost(() => custody.transactions.retry(failed.id, failed))

    expectLostThenAnswered(statuses)
    expect(retried.id).toBe(failed.id)
    expect(retried.status).not.toBe("failed")
    await confirmedAfterOneRetry(failed.id, destination)
  }, 60_000)

  it("retry: one that never reached the service is sent again once a read shows it was not taken", async () => {
    const { custody, statuses, refused } = recordingClient((url, init) => init?.method === "POST" && url.endsWith("/retry"))
    const { failed, destination } = await failedTransfer(custody)
    statuses.length = 0

    const retried = await custody.transactions.retry(failed.id, failed)

    expect(refused()).toBe(1)
    // The read (still failed, unchanged), then the retry sent again and accepted.
    expect(statuses).toEqual([200, 202])
    expect(retried.status).not.toBe("failed")
    await confirmedAfterOneRetry(failed.id, destination)
  }, 60_000)
})
