/**
 * The default database (issue #21): the service started as `npm start` starts it (`tsx src/main.ts
 * --dev`, no DATABASE_URL) runs a real PostgreSQL server of its own under DATA_DIR, and a second
 * process on the same DATA_DIR joins it. Here the first process is API-only (TX_PIPELINE_WORKERS=0,
 * once refused without DATABASE_URL) and the second runs the workers, woken by NOTIFY (a long poll
 * interval): every transfer confirms once. The server listens on the loopback only and wants the
 * generated password (kept in a 0600 file); it outlives the first process to leave while the other
 * still uses it, stops with the last, and the next start finds the data there.
 */
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { WireDataOf } from "../support/client.js"
import { Keypair } from "@solana/web3.js"
import * as fs from "node:fs"
import * as path from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { stopEmbeddedServer } from "../../src/db/embeddedServer.js"
import {
  call,
  createFundedWallet,
  killAllChildren,
  ledgerRpc,
  mapConcurrent,
  type ServiceProcess,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../support/processes.js"

const TRANSFERS = 12
const LAMPORTS = 1_000_000

let ledger: Awaited<ReturnType<typeof startLedgerProcess>> | undefined
const dataDir = tempDir("custody-embedded-")
const started: Array<ServiceProcess> = []

/**
 * As `npm start` (src/main.ts --dev, no DATABASE_URL), with the process tests' key so that `call` works.
 * Run by node with tsx as a loader rather than by the tsx CLI: on a busy machine the CLI may SIGKILL the
 * service when it does not acknowledge a SIGTERM within 30 ms, and this test checks what a clean stop does.
 */
const startDefault = async (env: Record<string, string>) => {
  if (ledger === undefined) throw new Error("no ledger")
  const service = await startServiceProcess({ dataDir, rpcUrl: ledger.rpcUrl, dev: true, nodeArgs: [], env: { TX_OUTBOX_POLL_MS: "60000", ...env } })
  started.push(service)
  return service
}

const postmaster = () => {
  const file = path.join(dataDir, "postgres", "postmaster.pid")
  if (!fs.existsSync(file)) return undefined
  const lines = fs.readFileSync(file, "utf8").split("\n")
  return { port: Number(lines[3]), listen: lines[5]?.trim() }
}

const password = () => (JSON.parse(fs.readFileSync(path.join(dataDir, "embedded-postgres.json"), "utf8")) as { password: string }).password

const connects = async (config: pg.ClientConfig) => {
  const client = new pg.Client({ ...config, connectionTimeoutMillis: 5_000 })
  try {
    await client.connect()
    await client.query("SELECT 1")
    return "connected"
  } catch (error) {
    return String(error)
  } finally {
    await client.end().catch(() => undefined)
  }
}

beforeAll(async () => {
  ledger = await startLedgerProcess()
}, 120_000)

afterAll(async () => {
  await Promise.all(started.map((service) => service.stop(5_000)))
  killAllChildren()
  await stopEmbeddedServer(dataDir)
  await ledger?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
}, 120_000)

const transactionsOf = async (baseUrl: string, walletId: string) =>
  (await call<WireDataOf<typeof TransactionsApi.listByWallet>>(baseUrl, "GET", `/api/v1/wallets/${walletId}/transactions?limit=100`)).body.data.transactions

describe("the embedded PostgreSQL default", () => {
  it("an API-only process and a worker process share it: each transfer confirms once; it stops with the last and is reused", async () => {
    const api = await startDefault({ TX_PIPELINE_WORKERS: "0" })
    const workers = await startDefault({ TX_PIPELINE_WORKERS: "8" })

    // A real server under DATA_DIR, on a loopback port of its own, that wants the generated password.
    const server = postmaster()
    expect(server?.listen).toBe("127.0.0.1")
    expect(server?.port).not.toBe(5432)
    expect(fs.existsSync(path.join(dataDir, "postgres", "PG_VERSION"))).toBe(true)
    expect(fs.statSync(path.join(dataDir, "embedded-postgres.json")).mode & 0o777).toBe(0o600)
    const at = { host: "127.0.0.1", port: server!.port, user: "postgres", database: "postgres" }
    expect(await connects({ ...at, password: password() })).toBe("connected")
    expect(await connects({ ...at, password: "not-the-password" })).toMatch(/password authentication failed/)
    expect(await connects(at)).not.toBe("connected")

    const source = await createFundedWallet(api.baseUrl, 1_000_000_000)
    const destinations = Array.from({ length: TRANSFERS }, () => Keypair.generate().publicKey.toBase58())
    const countBefore = await ledgerRpc<number>(ledger!.rpcUrl, "getTransactionCount")
    const created = await mapConcurrent(destinations, 6, (destination, i) =>
      call<WireDataOf<typeof TransactionsApi.create>>(api.baseUrl, "POST", "/api/v1/transactions", {
        walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS + i }
      })
    )
    expect(created.map((response) => response.status)).toEqual(Array(TRANSFERS).fill(201))

    const deadline = Date.now() + 60_000
    let records = await transactionsOf(api.baseUrl, source.id)
    while (!records.every((r) => r.status === "confirmed" || r.status === "failed") && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      records = await transactionsOf(api.baseUrl, source.id)
    }
    expect(records.map((r) => r.status)).toEqual(Array(TRANSFERS).fill("confirmed"))
    expect(new Set(records.map((r) => r.signature)).size).toBe(TRANSFERS)
    // Each landed once: the ledger counted exactly these, and each destination holds exactly its amount.
    expect((await ledgerRpc<number>(ledger!.rpcUrl, "getTransactionCount")) - countBefore).toBe(TRANSFERS)
    const balances = await mapConcurrent(destinations, 4, (destination) =>
      ledgerRpc<{ value: number }>(ledger!.rpcUrl, "getBalance", [destination, { commitment: "confirmed" }])
    )
    expect(balances.map((b) => b.value)).toEqual(destinations.map((_, i) => LAMPORTS + i))

    // The first process to leave leaves the server to the other; the last one stops it.
    await api.stop()
    expect(postmaster()?.port).toBe(server!.port)
    expect((await transactionsOf(workers.baseUrl, source.id)).length).toBe(TRANSFERS)
    await workers.stop()
    expect(postmaster()).toBeUndefined()

    // The next start reuses the cluster: the transfers are still there.
    const again = await startDefault({ TX_PIPELINE_WORKERS: "2" })
    expect((await transactionsOf(again.baseUrl, source.id)).map((r) => r.status)).toEqual(Array(TRANSFERS).fill("confirmed"))
    await again.stop()
    expect(postmaster()).toBeUndefined()
  }, 240_000)
})
