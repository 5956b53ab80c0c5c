/**
 * Exactly once (issue #3): two service processes (the real entry point, `tsx src/main.ts`) share one
 * PostgreSQL database, one DATA_DIR (the wallet keys) and one ledger; 200 transfer_sol are submitted
 * through both gateways at once, so both processes' workers claim from the same outbox. Every one must
 * end confirmed, with 200 distinct signatures, each landed once on the ledger, the ledger's transaction
 * count grown by exactly 200, every destination holding exactly the sum sent to it, and the outbox
 * holding 200 done jobs and no failed one.
 *
 * A fresh database for this file, created on TEST_DATABASE_URL's server (the machine's, or the embedded
 * one the run starts: test/support/globalDatabase.ts) and dropped after it. embeddedDefault.test.ts
 * shows the same on the embedded server a service starts for itself.
 */
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { OutboxApi } from "../../schemas/api/operations.js"
import type { WireDataOf } from "../support/client.js"
import { Keypair } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  call,
  createFundedWallet,
  killAllChildren,
  ledgerRpc,
  mapConcurrent,
  type ServiceProcess,
  type SharedDeployment,
  startSharedDeployment
} from "../support/processes.js"

const TRANSFERS = 200
const SOURCES = 4
const DESTINATIONS = 8
const SETTLE_TIMEOUT_MS = 150_000

let deployment: SharedDeployment | undefined
let ledger: SharedDeployment["ledger"] | undefined
let database: SharedDeployment["database"] | undefined
const services: Array<ServiceProcess> = []

beforeAll(async () => {
  deployment = await startSharedDeployment("custody-exactly-once-")
  ;({ ledger, database } = deployment)
  try {
    const env = { TX_PIPELINE_WORKERS: "8", TX_OUTBOX_POLL_MS: "500" }
    // One after the other: the first runs the migrations, the second finds them done.
    services.push(await deployment.startService(env))
    services.push(await deployment.startService(env))
  } catch (error) {
    killAllChildren()
    throw error
  }
}, 240_000)

afterAll(async () => {
  await deployment?.close()
}, 60_000)

/** A transaction as the list answers it (the wire form). */
type TxRecord = WireDataOf<typeof TransactionsApi.get>

/** Lists a wallet's transactions through a gateway (pages of 100). */
const listWallet = async (baseUrl: string, walletId: string): Promise<Array<TxRecord>> => {
  const all: Array<TxRecord> = []
  for (let offset = 0; ; offset += 100) {
    const page = await call<WireDataOf<typeof TransactionsApi.listByWallet>>(baseUrl, "GET", `/api/v1/wallets/${walletId}/transactions?limit=100&offset=${offset}`)
    const rows = page.body.data.transactions
    all.push(...rows)
    if (rows.length < 100) return all
  }
}

describe("exactly once across two worker processes on one PostgreSQL", () => {
  it("200 transfers through both gateways: each confirmed once, no duplicate signature or transfer on the ledger", async () => {
    const [a, b] = services as [ServiceProcess, ServiceProcess]
    // Wallets are created through either process: the other signs with them (shared DATA_DIR/keys).
    const sources = await Promise.all(
      Array.from({ length: SOURCES }, (_, i) => createFundedWallet(i % 2 === 0 ? a.baseUrl : b.baseUrl, 2_000_000_000))
    )
    const destinations = Array.from({ length: DESTINATIONS }, () => Keypair.generate().publicKey.toBase58())
    const countBefore = await ledgerRpc<number>(ledger!.rpcUrl, "getTransactionCount")

    // Distinct amounts (all above the rent-exempt minimum, so the first one to a new address is valid).
    const plan = Array.from({ length: TRANSFERS }, (_, i) => ({
      gateway: i % 2 === 0 ? a : b,
      walletId: sources[i % SOURCES]!.id,
      destination: destinations[i % DESTINATIONS]!,
      lamports: 1_000_000 + i
    }))
    const created = await mapConcurrent(plan, 16, async (entry) => {
      const response = await call<WireDataOf<typeof TransactionsApi.create>>(entry.gateway.baseUrl, "POST", "/api/v1/transactions?waitMs=0", {
        walletId: entry.walletId, type: "transfer_sol", protocol: "system-program",
        intent: { destination: entry.destination, lamports: entry.lamports }
      })
      expect(response.status, JSON.stringify(response.body)).toBe(201)
      return response.body.data.id as string
    })
    expect(new Set(created).size).toBe(TRANSFERS)

    // Wait until every transaction is terminal, reading through the other gateway.
    const deadline = Date.now() + SETTLE_TIMEOUT_MS
    let records: Array<TxRecord> = []
    for (;;) {
      records = (await Promise.all(sources.map((source, i) => listWallet((i % 2 === 0 ? b : a).baseUrl, source.id)))).flat()
      const open = records.filter((r) => r.status !== "confirmed" && r.status !== "failed")
      if (open.length === 0 || Date.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 500))
    }
    expect(records.length).toBe(TRANSFERS)
    const notConfirmed = records.filter((r) => r.status !== "confirmed")
    expect(notConfirmed.map((r) => `${r.id} ${r.status} ${r.error ?? ""}`)).toEqual([])

    // 200 distinct signatures, each on the ledger once and successful.
    const signatures = records.map((r) => r.signature ?? "")
    expect(new Set(signatures).size).toBe(TRANSFERS)
    for (let i = 0; i < signatures.length; i += 100) {
      const { value } = await ledgerRpc<{ value: Array<{ err: unknown } | null> }>(ledger!.rpcUrl, "getSignatureStatuses", [
        signatures.slice(i, i + 100), { searchTransactionHistory: true }
      ])
      expect(value.every((status) => status !== null && status.err === null)).toBe(true)
    }
    const landed = await mapConcurrent(signatures, 8, (signature) =>
      ledgerRpc<{ transaction: { signatures: Array<string> } } | null>(ledger!.rpcUrl, "getTransaction", [
        signature, { encoding: "json", commitment: "confirmed", maxSupportedTransactionVersion: 0 }
      ])
    )
    expect(landed.every((tx, i) => tx !== null && tx.transaction.signatures[0] === signatures[i])).toBe(true)

    // Nothing else landed: the ledger counted exactly these 200 transactions since the funding.
    const countAfter = await ledgerRpc<number>(ledger!.rpcUrl, "getTransactionCount")
    expect(countAfter - countBefore).toBe(TRANSFERS)

    // Each destination holds exactly what was sent to it once (a transfer run twice would show here).
    for (const destination of destinations) {
      const expected = plan.filter((p) => p.destination === destination).reduce((sum, p) => sum + p.lamports, 0)
      const { value } = await ledgerRpc<{ value: number }>(ledger!.rpcUrl, "getBalance", [destination, { commitment: "confirmed" }])
      expect(value).toBe(expected)
    }

    // The shared outbox: one done job per transaction, none failed or left open.
    const stats = await call<WireDataOf<typeof OutboxApi.stats>>(a.baseUrl, "GET", "/api/v1/outbox/stats")
    expect(stats.body.data).toEqual({ pending: 0, processing: 0, failed: 0, done: TRANSFERS })
    const jobs = await database!.query<{ n: string }>(`SELECT count(DISTINCT tx_id)::text AS n FROM outbox_jobs WHERE status = 'done'`)
    expect(Number(jobs[0]!.n)).toBe(TRANSFERS)
  }, 300_000)
})
