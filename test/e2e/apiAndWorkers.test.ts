/**
 * An API-only process and a worker process (the real entry point, `tsx src/main.ts`, twice): the API
 * process runs with TX_PIPELINE_WORKERS=0, so it accepts transactions but runs no pipeline worker; the
 * worker process shares its PostgreSQL database, DATA_DIR (wallet keys) and ledger, and is woken by the
 * API process's NOTIFY. Every transfer posted to the API process must be confirmed, by the worker
 * process, with both balances moved on the ledger; and a stage-stream client of the API process sees
 * the stages the worker process ran, and each create (waiting by default) answers with the outcome the
 * worker process reached, woken across processes by the relayed stage events (whose settled events carry
 * the record, so the answer is the record as stored, without a read).
 *
 * A fresh database, created on TEST_DATABASE_URL's server (the machine's, or the embedded one the run
 * starts: test/support/globalDatabase.ts) and dropped. embeddedDefault.test.ts shows the same on the
 * embedded server a service starts for itself.
 */
import type { RuntimeApi } from "../../schemas/api/runtime.js"
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { WireDataOf } from "../support/client.js"
import { Keypair } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import pg from "pg"
import { WebSocket } from "ws"
import {
  call,
  createFundedWallet,
  killAllChildren,
  ledgerRpc,
  SERVICE_API_KEY,
  type ServiceProcess,
  type SharedDeployment,
  startSharedDeployment
} from "../support/processes.js"

const TRANSFERS = 20
const LAMPORTS = 1_000_000

let deployment: SharedDeployment | undefined
let workers: ServiceProcess | undefined
let api: ServiceProcess | undefined

beforeAll(async () => {
  deployment = await startSharedDeployment("custody-api-workers-")
  try {
    // A long poll interval: the worker process must be woken by NOTIFY, not find the jobs by polling.
    workers = await deployment.startService({ TX_PIPELINE_WORKERS: "8", TX_OUTBOX_POLL_MS: "60000" })
    api = await deployment.startService({ TX_PIPELINE_WORKERS: "0", TX_OUTBOX_POLL_MS: "60000" })
  } catch (error) {
    killAllChildren()
    throw error
  }
}, 240_000)

afterAll(async () => {
  await deployment?.close()
}, 60_000)

const pipelineWorkers = async (service: ServiceProcess) => {
  const listed = await call<WireDataOf<typeof RuntimeApi.actors>>(service.baseUrl, "GET", "/api/v1/runtime/actors")
  expect(listed.status).toBe(200)
  return listed.body.data.actors.filter((actor) => actor.kind === "pipeline-worker").length
}

describe("an API-only process beside a worker process", () => {
  it("accepts transfers without running workers; the worker process confirms every one", async () => {
    if (api === undefined || workers === undefined || deployment === undefined) throw new Error("set-up failed")
    const ledger = deployment.ledger
    expect(await pipelineWorkers(api)).toBe(0)
    expect(await pipelineWorkers(workers)).toBe(8)

    const source = await createFundedWallet(api.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()

    // A stage-stream client of the API process, subscribed to the source wallet.
    const stream = new WebSocket(`${api.baseUrl.replace("http", "ws")}/api/v1/stream?walletId=${source.id}`, { headers: { "x-api-key": SERVICE_API_KEY } })
    const seen: Array<{ type: string; txId?: string; status?: string }> = []
    stream.on("message", (data) => seen.push(JSON.parse(data.toString()) as (typeof seen)[number]))
    await new Promise<void>((resolve, reject) => {
      stream.once("message", () => resolve())
      stream.once("error", reject)
    })
    const created = await Promise.all(
      Array.from({ length: TRANSFERS }, (_, i) =>
        call<WireDataOf<typeof TransactionsApi.create>>(api!.baseUrl, "POST", "/api/v1/transactions", {
          walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS + i }
        })
      )
    )
    expect(created.map((response) => response.status)).toEqual(Array(TRANSFERS).fill(201))
    // Create waits by default: the API process's requests were woken by the worker process's stage
    // events (relayed by NOTIFY), so each answered with the outcome.
    expect(created.map((response) => response.body.data.status)).toEqual(Array(TRANSFERS).fill("confirmed"))

    const deadline = Date.now() + 60_000
    let records: WireDataOf<typeof TransactionsApi.listByWallet>["transactions"] = []
    for (;;) {
      const page = await call<WireDataOf<typeof TransactionsApi.listByWallet>>(api.baseUrl, "GET", `/api/v1/wallets/${source.id}/transactions?limit=100`)
      records = page.body.data.transactions
      if (records.every((r) => r.status === "confirmed" || r.status === "failed") || Date.now() > deadline) break
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(records.map((r) => r.status)).toEqual(Array(TRANSFERS).fill("confirmed"))
    expect(new Set(records.map((r) => r.signature)).size).toBe(TRANSFERS)
    // Each create answered with the whole record as stored (the worker process's settled event carries its
    // record columns across, so the API process answers without reading it): the same as a read now.
    const byId = new Map(records.map((r) => [r.id, r]))
    for (const response of created) expect(response.body.data).toEqual(byId.get(response.body.data.id))

    const expected = Array.from({ length: TRANSFERS }, (_, i) => LAMPORTS + i).reduce((a, b) => a + b, 0)
    const balance = await ledgerRpc<{ value: number }>(ledger.rpcUrl, "getBalance", [destination, { commitment: "confirmed" }])
    expect(balance.value).toBe(expected)

    // Every transaction's stages reached the API process's client, in order, though the worker process ran them.
    const streamDeadline = Date.now() + 10_000
    const confirmedSeen = () => new Set(seen.filter((m) => m.type === "stage" && m.status === "confirmed").map((m) => m.txId)).size
    while (confirmedSeen() < TRANSFERS && Date.now() < streamDeadline) await new Promise((resolve) => setTimeout(resolve, 100))
    stream.terminate()
    expect(confirmedSeen()).toBe(TRANSFERS)
    // The record a relayed event carries is for the waiting requests only, never sent to stream clients.
    expect(seen.some((m) => "record" in m)).toBe(false)
    const first = created[0].body.data.id as string
    expect(seen.filter((m) => m.type === "stage" && m.txId === first).map((m) => m.status)).toEqual([
      "pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"
    ])
  }, 120_000)

  it("after PostgreSQL ends every connection of both processes (a restart, a failover), wakes and answers across processes again", async () => {
    if (api === undefined || workers === undefined || deployment === undefined) throw new Error("set-up failed")
    const source = await createFundedWallet(api.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const listenerRestarts = async (service: ServiceProcess) => {
      const actor = await call<WireDataOf<typeof RuntimeApi.actor>>(service.baseUrl, "GET", "/api/v1/runtime/actors/pg-listener")
      expect(actor.status).toBe(200)
      return actor.body.data.restarts
    }
    const before = await Promise.all([listenerRestarts(api), listenerRestarts(workers)])

    const admin = new pg.Client({ connectionString: deployment.database.url })
    await admin.connect()
    try {
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
      // Both pools and both LISTEN connections.
      expect(cut.rowCount).toBeGreaterThanOrEqual(4)
    } finally {
      await admin.end()
    }
    // Each process replaced its LISTEN connection (and will open pool connections as it needs them).
    const deadline = Date.now() + 10_000
    while (Date.now() < deadline) {
      const now = await Promise.all([listenerRestarts(api), listenerRestarts(workers)])
      if (now[0] > before[0] && now[1] > before[1]) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(await Promise.all([listenerRestarts(api), listenerRestarts(workers)])).toEqual([before[0] + 1, before[1] + 1])

    // The poll is a minute away: only the API process's NOTIFY wakes the worker process, and only its relayed
    // stage events answer the waiting creates with the outcome.
    const created = await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        call<WireDataOf<typeof TransactionsApi.create>>(api!.baseUrl, "POST", "/api/v1/transactions", {
          walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS + i }
        })
      )
    )
    expect(created.map((response) => response.status)).toEqual(Array(5).fill(201))
    expect(created.map((response) => response.body.data.status)).toEqual(Array(5).fill("confirmed"))
    const balance = await ledgerRpc<{ value: number }>(deployment.ledger.rpcUrl, "getBalance", [destination, { commitment: "confirmed" }])
    expect(balance.value).toBe(5 * LAMPORTS + 10)
  }, 120_000)
})
