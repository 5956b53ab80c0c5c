/**
 * `npm run bench:reads`: what one hot read costs (issue 18 item 2). The service as a child process on
 * PostgreSQL (fresh ledger and database), one funded wallet with BENCH_READ_ROWS (20) confirmed
 * transfers, then BENCH_READ_CLIENTS (16) concurrent clients making BENCH_READS (4,000) requests of
 * each path in turn, round-robin over the transfers:
 *   - `health`: GET /health (no key; one `SELECT 1`): the floor of an HTTP request with one SQL round trip;
 *   - `transaction`: GET /api/v1/transactions/<id>, what a polling client calls;
 *   - `wallet-list`: GET /api/v1/wallets/<id>/transactions?limit=20.
 * Prints requests/s, latency p50/p99, CPU per request of the service, PostgreSQL and the clients, and
 * the load average. BENCH_READ_PATHS picks paths (comma-separated); BENCH_CPU_PROF=<dir> runs the
 * service with --cpu-prof.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  createFundedWallet,
  createPostgresDatabase,
  killAllChildren,
  mapConcurrent,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../test/support/processes.js"
import { Keypair } from "@solana/web3.js"
import { cpuDelta, cpuSnapshot } from "./support/cpu.js"
import { benchPostgresUrl } from "./support/postgresUrl.js"
import { ms, percentile, table } from "./support/stats.js"
import { getJson, postJson } from "./support/transferClients.js"

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  return raw === undefined || raw.trim() === "" ? fallback : Number.parseInt(raw, 10)
}

const PATHS = ["health", "transaction", "wallet-list"] as const
type ReadPath = (typeof PATHS)[number]

const settings = {
  rows: intEnv("BENCH_READ_ROWS", 20),
  clients: intEnv("BENCH_READ_CLIENTS", 16),
  reads: intEnv("BENCH_READS", 4_000),
  paths: (process.env.BENCH_READ_PATHS ?? PATHS.join(","))
    .split(",")
    .map((s) => s.trim())
    .filter((s): s is ReadPath => (PATHS as ReadonlyArray<string>).includes(s)),
  cpuProfDir: process.env.BENCH_CPU_PROF
}

const loadAverage = () => os.loadavg().map((n) => n.toFixed(2)).join(", ")

const main = async () => {
  console.log(`read cost bench: ${settings.reads} requests per path by ${settings.clients} clients; load average at start ${loadAverage()}`)
  const ledger = await startLedgerProcess()
  const database = await createPostgresDatabase(benchPostgresUrl())
  const databaseName = new URL(database.url).pathname.slice(1)
  const dataDir = tempDir("custody-bench-")
  try {
    const service = await startServiceProcess({
      databaseUrl: database.url,
      dataDir,
      rpcUrl: ledger.rpcUrl,
      ...(settings.cpuProfDir === undefined ? {} : { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${path.resolve(settings.cpuProfDir)}`] })
    })
    try {
      const wallet = await createFundedWallet(service.baseUrl, 1_000_000_000)
      const destination = Keypair.generate().publicKey.toBase58()
      const ids: Array<string> = []
      for (let i = 0; i < settings.rows; i++) {
        const response = await postJson(service.baseUrl, "/api/v1/transactions?waitMs=30000", {
          walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_000_000 + i }
        })
        if (response.body.data?.status !== "confirmed") throw new Error(`set-up transfer not confirmed: ${JSON.stringify(response.body)}`)
        ids.push(response.body.data.id as string)
      }
      const [sizes] = await database.query<Record<string, number>>(
        `SELECT pg_column_size(t.*) AS whole_row, pg_column_size(request) AS request, pg_column_size(simulation) AS simulation,
                pg_column_size(signed_transaction) AS signed_transaction, pg_column_size(message_base64) AS message_base64,
                pg_column_size(build_facts) AS build_facts, pg_column_size(history) AS history,
                pg_column_size(execution_proof) AS execution_proof, pg_column_size(policy_decision) AS policy_decision
         FROM transactions t WHERE id = $1`,
        [ids[0]]
      )
      const sample = await getJson(service.baseUrl, `/api/v1/transactions/${ids[0]}`)
      console.log(`a confirmed transfer's row, bytes stored per column: ${JSON.stringify(sizes)}; GET answer ${JSON.stringify(sample.body).length} bytes of JSON`)
      const urlOf = (p: ReadPath, i: number) =>
        p === "health" ? "/health" : p === "transaction" ? `/api/v1/transactions/${ids[i % ids.length]}` : `/api/v1/wallets/${wallet.id}/transactions?limit=20`

      const rows: Array<Array<string>> = [["path", "requests/s", "p50", "p99", "service CPU/req", "PostgreSQL CPU/req (its backends)", "clients CPU/req", "load avg"]]
      for (const p of settings.paths) {
        // Warm-up: the JIT and the pool settle.
        await mapConcurrent(Array.from({ length: 500 }, (_, i) => i), settings.clients, (i) => getJson(service.baseUrl, urlOf(p, i)))
        const latencies: Array<number> = []
        const before = cpuSnapshot([service.pid], ledger.pid, databaseName)
        const started = performance.now()
        await mapConcurrent(Array.from({ length: settings.reads }, (_, i) => i), settings.clients, async (i) => {
          const t0 = performance.now()
          const response = await getJson(service.baseUrl, urlOf(p, i))
          latencies.push(performance.now() - t0)
          if (response.status !== 200) throw new Error(`${p}: ${response.status} ${JSON.stringify(response.body)}`)
        })
        const elapsed = (performance.now() - started) / 1000
        const cpu = cpuDelta(before, cpuSnapshot([service.pid], ledger.pid, databaseName))
        const per = (seconds: number) => `${((seconds * 1000) / settings.reads).toFixed(3)} ms`
        rows.push([
          p, (settings.reads / elapsed).toFixed(0), ms(percentile(latencies, 50)), ms(percentile(latencies, 99)),
          per(cpu.service), per(cpu.postgres), per(cpu.bench), loadAverage()
        ])
      }
      console.log(`\n${table(rows)}\n(latencies in ms; CPU per request from /proc, PostgreSQL = the backends serving the bench's database)`)
    } finally {
      await service.stop(15_000)
    }
  } finally {
    await ledger.close()
    await database.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

try {
  await main()
} finally {
  killAllChildren()
}
