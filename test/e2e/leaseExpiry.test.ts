/**
 * Outbox transition "processing, lease expired → processing under another worker" (issue #22): a lease
 * that expires mid-job. Two service processes (the real entry point) share one PostgreSQL database,
 * one DATA_DIR and one ledger; TX_OUTBOX_LEASE_MS is 2000.
 *
 * Process A (the only one running at first, one worker, chaos allowed) takes a transfer's job. Chaos
 * latency (3 s before each stage, in A only: B runs without CHAOS_ENABLED) keeps the job in flight, and A
 * is frozen with SIGSTOP (not killed) once the transfer is signed and recorded `submitting`, i.e. while
 * A waits to send it. Its lease expires while process B starts; B claims the job and finishes it. Then A is
 * resumed (SIGCONT) and carries on from where it was frozen. What a user would check: the transfer
 * landed on the ledger once (the destination holds the amount once, one signature), the transaction
 * is `confirmed` with two outbox attempts, one `submitting` and one `confirmed` history entry, its job
 * `done` after two claims; A's late run changed neither the record nor the job (its lease renewal,
 * fenced by the lease id, tells it the job is another's, and it lets go), and A's worker still works
 * afterwards (it used to end for good on a lost lease: the run's interruption was passed on as its own).
 */
import type { AuditApi } from "../../schemas/api/audit.js"
import type { OutboxApi } from "../../schemas/api/operations.js"
import type { RuntimeApi } from "../../schemas/api/runtime.js"
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { WireDataOf } from "../support/client.js"
import { Keypair } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, createFundedWallet, ledgerRpc, type SharedDeployment, startSharedDeployment } from "../support/processes.js"
import { waitFor } from "../support/wait.js"

const LEASE_MS = 2_000
const CHAOS_LATENCY_MS = 3_000
const AMOUNT = 5_000_000
const settings = { TX_PIPELINE_WORKERS: "1", TX_OUTBOX_LEASE_MS: String(LEASE_MS), TX_OUTBOX_POLL_MS: "250" }

type TxRecord = WireDataOf<typeof TransactionsApi.get>

interface JobRow {
  readonly id: string
  readonly status: string
  readonly attempts: number
  readonly lease_id: string | null
  readonly lease_expires_at: Date | null
  readonly expired: boolean | null
  readonly updated_at: Date
  /** Its transaction's status, read in the same statement: both as of one moment. */
  readonly tx_status: string
}

let deployment: SharedDeployment | undefined

beforeAll(async () => {
  deployment = await startSharedDeployment("custody-lease-")
}, 120_000)

afterAll(async () => {
  await deployment?.close()
}, 60_000)

const jobOf = async (txId: string) => {
  const rows = await deployment!.database.query<JobRow>(
    `SELECT j.id, j.status, j.attempts, j.lease_id, j.lease_expires_at, j.lease_expires_at < now() AS expired, j.updated_at, t.status AS tx_status
     FROM outbox_jobs j JOIN transactions t ON t.id = j.tx_id WHERE j.tx_id = $1`, [txId]
  )
  expect(rows.length).toBe(1)
  return rows[0]!
}

const statusOf = async (txId: string) =>
  (await deployment!.database.query<{ status: string }>(`SELECT status FROM transactions WHERE id = $1`, [txId]))[0]?.status

const readTransaction = async (baseUrl: string, txId: string) => {
  const response = await call<TxRecord>(baseUrl, "GET", `/api/v1/transactions/${txId}`)
  expect(response.status).toBe(200)
  return response.body.data
}

const balanceOf = async (address: string) =>
  (await ledgerRpc<{ value: number }>(deployment!.ledger.rpcUrl, "getBalance", [address, { commitment: "confirmed" }])).value

const transfer = async (baseUrl: string, walletId: string, destination: string, lamports: number) => {
  const response = await call<WireDataOf<typeof TransactionsApi.create>>(baseUrl, "POST", "/api/v1/transactions?waitMs=0", {
    walletId, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports }
  })
  expect(response.status, JSON.stringify(response.body)).toBe(201)
  return response.body.data.id
}

describe("outbox: a lease that expires mid-job", () => {
  it("a frozen worker's expired lease is claimed by another process, which confirms the transfer once; the frozen worker's late run changes nothing", async () => {
    const a = await deployment!.startService({ ...settings, CHAOS_ENABLED: "true" })
    const source = await createFundedWallet(a.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const chaos = await call(a.baseUrl, "PUT", "/api/v1/chaos", { enabled: true, latencyMs: CHAOS_LATENCY_MS, failureRates: {} })
    expect(chaos.status).toBe(200)

    // A takes the job; freeze it once the transfer is signed and A sits in the latency before sending.
    const txId = await transfer(a.baseUrl, source.id, destination, AMOUNT)
    await waitFor("A to sign the transfer", async () => (await statusOf(txId)) === "submitting", 90_000, 20)
    a.kill("SIGSTOP")
    const frozenAt = await jobOf(txId)
    expect(frozenAt.status).toBe("processing")
    expect(frozenAt.attempts).toBe(1)
    expect(frozenAt.lease_id).not.toBeNull()
    expect(frozenAt.lease_expires_at).not.toBeNull()
    // A is frozen (its gateway cannot answer): the signature it recorded, from the database.
    const signatureOfA = (await deployment!.database.query<{ signature: string | null }>(`SELECT signature FROM transactions WHERE id = $1`, [txId]))[0]?.signature
    expect(signatureOfA).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    expect(await balanceOf(destination)).toBe(0)

    // The lease runs out while A is frozen; B (no chaos) starts meanwhile, claims the expired job and finishes
    // it. A built service starts in about a second, so B may be polling before A's lease runs out, and may claim
    // the job between two of this test's looks at it: what is checked is that the claim came after the lease ran out.
    const startingB = deployment!.startService(settings)
    // Awaited below; a failed start is reported there, not as an unhandled rejection meanwhile.
    startingB.catch(() => undefined)
    let lapsed: JobRow | undefined
    await waitFor("A's lease to lapse or be claimed after it ran out", async () => {
      const job = await jobOf(txId)
      lapsed = job.expired === true || job.lease_id !== frozenAt.lease_id ? job : undefined
      return lapsed !== undefined
    }, 10 * LEASE_MS, 50)
    if (lapsed!.lease_id === frozenAt.lease_id) {
      // Seen between the lapse and B's claim: A's transfer is still where A left it.
      expect(lapsed!.tx_status).toBe("submitting")
    } else {
      // Seen after B's claim: the claim (its updated_at, or a later write of B's) is not earlier than A's lease ran out.
      expect(lapsed!.attempts).toBe(2)
      expect(lapsed!.updated_at.getTime()).toBeGreaterThanOrEqual(frozenAt.lease_expires_at!.getTime())
    }
    const b = await startingB
    await waitFor("B to confirm the transfer", async () => (await statusOf(txId)) === "confirmed", 60_000, 100)
    const confirmedByB = await readTransaction(b.baseUrl, txId)
    const jobAfterB = await jobOf(txId)

    // The record shows the second claim: two outbox attempts, the job done by its second lease.
    expect(confirmedByB.status).toBe("confirmed")
    expect(confirmedByB.failedAt).toBeNull()
    expect(confirmedByB.attempts).toBe(2)
    expect(confirmedByB.signature).toBe(signatureOfA)
    expect(confirmedByB.history.filter((entry) => entry.status === "submitting").length).toBe(1)
    expect(confirmedByB.history.filter((entry) => entry.status === "confirmed").length).toBe(1)
    expect(jobAfterB).toMatchObject({ status: "done", attempts: 2, lease_id: null })

    // A resumes where it was frozen (its latency runs out, it holds a lease it lost) and settles.
    a.kill("SIGCONT")
    const workerA = async () =>
      (await call<WireDataOf<typeof RuntimeApi.actor>>(a.baseUrl, "GET", "/api/v1/runtime/actors/pipeline-worker-1")).body.data
    let lastSeen: unknown
    await waitFor("A's worker to settle after its lost lease", async () => {
      const worker = await workerA()
      lastSeen = worker
      return worker.status === "idle"
    }, 30_000, 100).catch((error: unknown) => {
      throw new Error(`${String(error)}; A's worker: ${JSON.stringify(lastSeen)}\n${a.output().slice(-3_000)}`)
    })

    // A noticed its lease was gone (the renewal is fenced by the lease id) and let the job go. Its log line comes
    // through a pipe, which this process may read after the actor's answer that said A's worker is idle.
    await waitFor("A's log of the lost lease", async () => a.output().includes(`outbox job ${jobAfterB.id}: lease lost`), 5_000, 50).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${a.output().slice(-3_000)}`)
    })

    // A's late run changed nothing: the record and the job are as B left them, confirmed once.
    const afterA = await readTransaction(b.baseUrl, txId)
    expect(afterA).toEqual(confirmedByB)
    const jobAfterA = await jobOf(txId)
    expect(jobAfterA).toEqual(jobAfterB)
    const confirmedEvents = await call<WireDataOf<typeof AuditApi.list>>(b.baseUrl, "GET", `/api/v1/audit/events?txId=${txId}&eventType=transaction.confirmed`)
    expect(confirmedEvents.body.data.events.length).toBe(1)

    // The ledger: one transfer landed, once.
    expect(await balanceOf(destination)).toBe(AMOUNT)
    const signatures = await ledgerRpc<Array<{ signature: string; err: unknown }>>(deployment!.ledger.rpcUrl, "getSignaturesForAddress", [
      destination, { commitment: "confirmed" }
    ])
    expect(signatures.map((s) => s.signature)).toEqual([signatureOfA])
    expect(signatures[0]!.err).toBeNull()

    // A's worker still works: with B gone and no latency, A alone confirms another transfer.
    await b.stop(5_000)
    expect((await call(a.baseUrl, "PUT", "/api/v1/chaos", { enabled: false, latencyMs: 0 })).status).toBe(200)
    const another = Keypair.generate().publicKey.toBase58()
    const nextId = await transfer(a.baseUrl, source.id, another, AMOUNT)
    await waitFor("A to confirm another transfer", async () => (await statusOf(nextId)) === "confirmed", 60_000, 100)
    expect(await balanceOf(another)).toBe(AMOUNT)
    expect((await readTransaction(a.baseUrl, nextId)).attempts).toBe(1)
    const stats = await call<WireDataOf<typeof OutboxApi.stats>>(a.baseUrl, "GET", "/api/v1/outbox/stats")
    expect(stats.body.data).toEqual({ pending: 0, processing: 0, failed: 0, done: 2 })
  }, 300_000)
})
