/**
 * Section 2 of `npm run bench:policy`: POST /api/v1/evaluate through the whole gateway (auth, scope,
 * tenant, decode, SQL state reads, audit event) for a wallet with 3 active policies of 10 rules each.
 * The service runs as a child process (the real entry point, `tsx src/main.ts`), so client and server
 * CPU are separate processes (they still share this machine's cores), once per database: PostgreSQL
 * (a fresh database on bench/support/postgresUrl.ts's server: TEST_DATABASE_URL, else the local socket)
 * and the embedded PostgreSQL (the default with no DATABASE_URL). A ledger child answers the chain reads of the
 * fixture's portfolio_risk rule (the wallet's value, shared by what-ifs for a second: docs/decisions/portfolio.md).
 * Target: >= 2,000 evaluations/s.
 *
 * Environment: BENCH_DATABASES ("postgres,embedded"), BENCH_HTTP_CONCURRENCY (32), BENCH_HTTP_OPERATIONS
 * (10,000), BENCH_CPU_PROF=<dir> (the service runs with --cpu-prof and writes its profile there on exit).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { Pool } from "undici"
import { stopEmbeddedServer } from "../src/db/embeddedServer.js"
import { cpuDelta, cpuSnapshot } from "./support/cpu.js"
import { benchPostgresUrl } from "./support/postgresUrl.js"
import {
  createPostgresDatabase,
  type FreshDatabase,
  SERVICE_API_KEY,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../test/support/processes.js"
import type { BenchFigures, BenchSection } from "./policy.js"
import { DEST, SYSTEM_PROGRAM, tenRules } from "./support/policyFixture.js"


const percentile = (sorted: Float64Array, p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  return raw === undefined || raw.trim() === "" ? fallback : Number.parseInt(raw, 10)
}

const settings = {
  concurrency: intEnv("BENCH_HTTP_CONCURRENCY", 32),
  operations: intEnv("BENCH_HTTP_OPERATIONS", 10_000),
  databases: (process.env.BENCH_DATABASES ?? "postgres,embedded").split(",").map((s) => s.trim()).filter((s) => s === "postgres" || s === "embedded"),
  cpuProfDir: process.env.BENCH_CPU_PROF
}

/** A keep-alive connection per client (undici's Pool costs the client far less CPU than fetch). */
const jsonClient = (baseUrl: string) => {
  const pool = new Pool(baseUrl, { connections: settings.concurrency, pipelining: 1 })
  const send = async (method: "GET" | "POST", urlPath: string, body?: string) => {
    const response = await pool.request({
      method,
      path: urlPath,
      headers: { "x-api-key": SERVICE_API_KEY, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body })
    })
    const json = (await response.body.json()) as { data: any; error?: string }
    return { status: response.statusCode, body: json }
  }
  return { send, close: () => pool.close() }
}

const measure = async (mode: "postgres" | "embedded"): Promise<BenchFigures> => {
  const dataDir = tempDir("custody-bench-policy-")
  let database: FreshDatabase | undefined
  const ledger = await startLedgerProcess()
  try {
    database = mode === "postgres" ? await createPostgresDatabase(benchPostgresUrl()) : undefined
    const service = await startServiceProcess({
      ...(database === undefined ? {} : { databaseUrl: database.url }),
      dataDir,
      rpcUrl: ledger.rpcUrl,
      env: { API_GATEWAY_RATE_LIMIT_PER_MINUTE: "1000000000", LOG_LEVEL: "Error" },
      ...(settings.cpuProfDir === undefined ? {} : { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${path.resolve(settings.cpuProfDir, mode)}`] })
    })
    const client = jsonClient(service.baseUrl)
    try {
      const walletId = (await client.send("POST", "/api/v1/wallets", "{}")).body.data.id as string
      for (const variant of [0, 1, 2]) {
        const created = await client.send("POST", "/api/v1/policies", JSON.stringify({ walletId, name: `bench ${variant}`, rules: tenRules(variant) }))
        if (created.status !== 201) throw new Error(`could not create the bench policy: ${created.body.error}`)
      }
      const body = JSON.stringify({ walletId, type: "transfer_sol", protocol: "system-program", destination: DEST, amountLamports: 1_000_000_000, programIds: [SYSTEM_PROGRAM] })
      const evaluateOnce = async () => {
        const response = await client.send("POST", "/api/v1/evaluate", body)
        if (response.status !== 200) throw new Error(`evaluate answered ${response.status}: ${response.body.error}`)
        return response.body.data as { decision: string; reasons: Array<string> }
      }
      const first = await evaluateOnce()
      if (first.decision !== "allow") throw new Error(`bench fixture should allow, got ${first.decision}: ${first.reasons.join("; ")}`)

      const runBatch = async (operations: number, latencies: Float64Array | null) => {
        let next = 0
        const worker = async () => {
          while (next < operations) {
            const index = next++
            const t0 = process.hrtime.bigint()
            await evaluateOnce()
            if (latencies !== null) latencies[index] = Number(process.hrtime.bigint() - t0) / 1e6
          }
        }
        await Promise.all(Array.from({ length: settings.concurrency }, worker))
      }
      await runBatch(2_000, null) // warm-up: the JIT, the pool and the compile cache settle
      const latencies = new Float64Array(settings.operations)
      const databaseName = database === undefined ? undefined : new URL(database.url).pathname.slice(1)
      const cpuBefore = cpuSnapshot([service.pid], ledger.pid, databaseName)
      const started = process.hrtime.bigint()
      await runBatch(settings.operations, latencies)
      const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6
      const cpu = cpuDelta(cpuBefore, cpuSnapshot([service.pid], ledger.pid, databaseName))
      const perOperation = (seconds: number) => ((seconds * 1000) / settings.operations).toFixed(3)
      latencies.sort()
      return {
        name: `policy evaluation over HTTP, POST /api/v1/evaluate (3 active policies x 10 rules), ${settings.concurrency} concurrent clients, service child on ${mode === "postgres" ? "PostgreSQL" : "the embedded PostgreSQL"}`,
        operations: settings.operations,
        perSecond: Math.round(settings.operations / (elapsedMs / 1000)),
        p50Ms: percentile(latencies, 50),
        p99Ms: percentile(latencies, 99),
        // Over HTTP only the throughput has a target; p99 is reported (bounded loosely so the check is the rate).
        target: { minPerSecond: 2_000, maxP99Ms: 1_000 },
        note: `CPU per evaluation: service ${perOperation(cpu.service)} ms${database === undefined ? "" : `, PostgreSQL ${perOperation(cpu.postgres)} ms`}, bench clients ${perOperation(cpu.bench)} ms`
      }
    } finally {
      await client.close()
      await service.stop(15_000)
    }
  } finally {
    await ledger.close()
    await database?.drop()
    await stopEmbeddedServer(dataDir)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export const httpEvaluateSections: Array<BenchSection> = settings.databases.map((mode) => ({
  name: `policy evaluation over HTTP on ${mode}`,
  run: () => measure(mode)
}))
