/**
 * An approve (or a reject) that PostgreSQL committed but whose answer never reached the service: the service
 * answers 503 (it cannot know what the commit did), and the client sends it again. The repeat must be answered
 * with the transaction as it now stands, not refused: before, it was 400 "not awaiting approval" (the approval
 * had released signing) or 409 "already approved", so the SDK's approve threw for an approval that was given,
 * and the operator could not tell it from a failure. Each time the transfer is paid once, with one approval.
 *
 * The commit is held by a test-only deferred trigger that waits for an advisory lock the administrator holds
 * (fired when a transaction leaves the approval gate); once it waits, the service's connections are silenced
 * and the lock let go, so the commit completes with its answer lost.
 */
import { Connection, Keypair } from "@solana/web3.js"
import { beforeAll, describe, expect, it } from "vitest"
import { CustodyClient, type Transaction } from "../../sdk/src/index.js"
import { defined } from "../support/defined.js"
import { commitWithAnswerLost, useProxiedServiceWithLedger } from "../support/proxiedService.js"
import { ADMIN_KEY } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const LAMPORTS = 1_000_000
const HOLD_LOCK = 731_731

const env = useProxiedServiceWithLedger({ env: { DATABASE_SILENCE_CHECK_MS: "500" } })
beforeAll(async () => {
  await env.admin.query(`
    CREATE FUNCTION test_hold_decision_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock(${HOLD_LOCK}); RETURN NULL; END $$`)
  await env.admin.query(`
    CREATE CONSTRAINT TRIGGER test_hold_decision_commit AFTER UPDATE ON transactions DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (OLD.status = 'approval_gate' AND NEW.status <> 'approval_gate') EXECUTE FUNCTION test_hold_decision_commit()`)
})

/** Answers each HTTP status the SDK met, in order (the SDK's retries hide them from its caller). */
const recordingClient = () => {
  const statuses: Array<number> = []
  const custody = new CustodyClient({
    baseUrl: env.service.baseUrl,
    apiKey: ADMIN_KEY,
    fetch: async (input, init) => {
      const response = await fetch(input, init)
      statuses.push(response.status)
      return response
    }
  })
  return { custody, statuses }
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

describe("a decision whose commit lost its answer", () => {
  it("approve: the SDK's repeat is answered with the approved transaction, and the transfer is paid once", async () => {
    const { tx, destination } = await gatedTransfer()
    const { custody, statuses } = recordingClient()

    const approved = await decideWithAnswerLost(() => custody.transactions.approve(tx.id, { previewHash: defined(tx.approval?.previewHash, "previewHash") }))

    expect(statuses).toEqual([503, 200])
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

    expect(statuses).toEqual([503, 200])
    expect(rejected).toMatchObject({ id: tx.id, status: "failed", errorCode: "POLICY_VIOLATION", approval: { status: "rejected", reason: "not today" } })
    expect((await auditTypes(tx.id)).filter((type) => type === "transaction.failed")).toHaveLength(1)
    expect(await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(destination)).toBe(0)
  }, 60_000)
})
