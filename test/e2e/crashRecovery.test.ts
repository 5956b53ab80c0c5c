/**
 * Crash (issue #3): kill -9 the service (the real entry point, its whole process group) while 100
 * transfers are in flight, some already confirmed and others between build and confirmation, then
 * start it again on the same PostgreSQL database and DATA_DIR. Every transfer must end `confirmed`
 * or visibly `failed` (with failedAt and an error), and the ledger must show no transfer twice: each
 * transfer has its own destination, so a confirmed one left exactly its amount there and a failed
 * one nothing; each confirmed signature landed once, and the ledger counted exactly the confirmed
 * transactions.
 *
 * The ledger is a separate child (killing the service leaves it running). PostgreSQL as in
 * exactlyOnce.test.ts: a fresh database on TEST_DATABASE_URL's server, or on the run's embedded one.
 * TX_OUTBOX_LEASE_MS is 2000, so the dead process's leases expire soon after the restart.
 */
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { OutboxApi } from "../../schemas/api/operations.js"
import type { WireDataOf } from "../support/client.js"
import { Keypair } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  call,
  createFundedWallet,
  ledgerRpc,
  mapConcurrent,
  type SharedDeployment,
  startSharedDeployment
} from "../support/processes.js"

const TRANSFERS = 100
const SOURCES = 4
const IN_FLIGHT = ["pending", "simulating", "policy_eval", "signing", "submitting"]
const BEYOND_PENDING = ["simulating", "policy_eval", "signing", "submitting"]

let deployment: SharedDeployment | undefined
let ledger: SharedDeployment["ledger"] | undefined
let database: SharedDeployment["database"] | undefined

const env = { TX_PIPELINE_WORKERS: "4", TX_OUTBOX_LEASE_MS: "2000", TX_OUTBOX_POLL_MS: "250" }

const startService = () => deployment!.startService(env)

beforeAll(async () => {
  deployment = await startSharedDeployment("custody-crash-")
  ;({ ledger, database } = deployment)
}, 120_000)

afterAll(async () => {
  await deployment?.close()
}, 60_000)

const statusCounts = async () => {
  const rows = await database!.query<{ status: string; n: string }>(`SELECT status, count(*)::text AS n FROM transactions GROUP BY status`)
  return Object.fromEntries(rows.map((row) => [row.status, Number(row.n)])) as Record<string, number>
}

const sum = (counts: Record<string, number>, statuses: ReadonlyArray<string>) => statuses.reduce((n, s) => n + (counts[s] ?? 0), 0)

describe("crash recovery: kill -9 with transfers in flight", () => {
  it("after a restart every transfer is confirmed or visibly failed, and none moved money twice", async () => {
    const first = await startService()
    const sources = await Promise.all(Array.from({ length: SOURCES }, () => createFundedWallet(first.baseUrl, 2_000_000_000)))
    const countBefore = await ledgerRpc<number>(ledger!.rpcUrl, "getTransactionCount")
    // One fresh destination per transfer: its balance afterwards tells how often that transfer landed.
    const plan = Array.from({ length: TRANSFERS }, (_, i) => ({
      walletId: sources[i % SOURCES]!.id,
      destination: Keypair.generate().publicKey.toBase58(),
      lamports: 1_000_000 + i
    }))

    // Submit all 100 (each create is durable once answered), then watch the database and kill -9
    // the service as soon as some are confirmed while others are past pending and not yet terminal.
    const ids = await mapConcurrent(plan, 16, async (entry) => {
      // ?waitMs=0: answer once recorded, so the kill finds work in flight.
      const response = await call<WireDataOf<typeof TransactionsApi.create>>(first.baseUrl, "POST", "/api/v1/transactions?waitMs=0", {
        walletId: entry.walletId, type: "transfer_sol", protocol: "system-program",
        intent: { destination: entry.destination, lamports: entry.lamports }
      })
      expect(response.status, JSON.stringify(response.body)).toBe(201)
      return response.body.data.id as string
    })
    let atKill: Record<string, number> = {}
    const watchUntil = Date.now() + 60_000
    for (;;) {
      atKill = await statusCounts()
      if ((atKill.confirmed ?? 0) >= 20 && sum(atKill, BEYOND_PENDING) >= 1) break
      if (Date.now() > watchUntil) throw new Error(`never caught transfers in flight: ${JSON.stringify(atKill)}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    first.kill("SIGKILL")
    await first.exited
    const afterKill = await statusCounts()
    // The kill caught work in flight: some confirmed, some not yet terminal.
    expect(afterKill.confirmed ?? 0).toBeGreaterThan(0)
    expect(sum(afterKill, IN_FLIGHT)).toBeGreaterThan(0)

    // Start again on the same database and keys; the dead leases expire and the work resumes.
    const second = await startService()
    const deadline = Date.now() + 120_000
    let counts = await statusCounts()
    while (sum(counts, IN_FLIGHT) > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      counts = await statusCounts()
    }
    expect(sum(counts, IN_FLIGHT), JSON.stringify({ atKill, afterKill, counts })).toBe(0)

    const records = await mapConcurrent(ids, 8, async (id) => (await call(second.baseUrl, "GET", `/api/v1/transactions/${id}`)).body.data as {
      id: string; status: string; signature: string | null; failedAt: string | null; error: string | null
    })
    const byStatus = (status: string) => records.filter((r) => r.status === status)
    expect(byStatus("confirmed").length + byStatus("failed").length).toBe(TRANSFERS)
    // Work the dead process had not signed yet has nothing that could have expired: it all confirms
    // after the restart (only a transaction signed before the kill may fail, visibly, at confirm).
    expect(byStatus("confirmed").length, JSON.stringify({ afterKill, counts })).toBeGreaterThanOrEqual((afterKill.confirmed ?? 0) + (afterKill.pending ?? 0))
    for (const failed of byStatus("failed")) expect(failed.failedAt, failed.id).toBe("confirm")
    // A failure is visible: where and why.
    for (const failed of byStatus("failed")) {
      expect(failed.failedAt, failed.id).not.toBeNull()
      expect(failed.error, failed.id).not.toBeNull()
    }

    // The ledger: a confirmed transfer landed once and left exactly its amount; a failed one nothing.
    const signatures = records.map((r) => r.signature)
    const { value: statuses } = await ledgerRpc<{ value: Array<{ err: unknown } | null> }>(ledger!.rpcUrl, "getSignatureStatuses", [
      signatures.map((s) => s ?? "1111111111111111111111111111111111111111111111111111111111111111"), { searchTransactionHistory: true }
    ])
    const balances = await mapConcurrent(plan, 8, (entry) =>
      ledgerRpc<{ value: number }>(ledger!.rpcUrl, "getBalance", [entry.destination, { commitment: "confirmed" }]).then((r) => r.value)
    )
    records.forEach((record, i) => {
      if (record.status === "confirmed") {
        expect(statuses[i], record.id).not.toBeNull()
        expect(statuses[i]!.err, record.id).toBeNull()
        expect(balances[i], record.id).toBe(plan[i]!.lamports)
      } else {
        if (record.signature !== null) expect(statuses[i] ?? null, record.id).toBeNull()
        expect(balances[i], record.id).toBe(0)
      }
    })
    expect(new Set(byStatus("confirmed").map((r) => r.signature)).size).toBe(byStatus("confirmed").length)
    const countAfter = await ledgerRpc<number>(ledger!.rpcUrl, "getTransactionCount")
    expect(countAfter - countBefore).toBe(byStatus("confirmed").length)

    // No job is left open in the outbox.
    const stats = await call<WireDataOf<typeof OutboxApi.stats>>(second.baseUrl, "GET", "/api/v1/outbox/stats")
    expect(stats.body.data.pending + stats.body.data.processing).toBe(0)
    console.log(`crash recovery: at kill ${JSON.stringify(afterKill)}; after restart ${byStatus("confirmed").length} confirmed, ${byStatus("failed").length} failed`)
  }, 300_000)
})
