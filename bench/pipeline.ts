/**
 * `npm run bench:pipeline`: transfer_sol through the whole service over HTTP, on PostgreSQL and on the
 * embedded PostgreSQL (the default with no DATABASE_URL), against the ledger alone as the ceiling, and the create path alone (an API-only
 * process with no pipeline running) as the bound of create latency.
 *
 * For each database: a fresh ledger child, a fresh database, the service as a child process (the real
 * entry point, `tsx src/main.ts`, so client and server CPU are separate processes; all share this
 * machine's cores), BENCH_SOURCES funded source wallets, a warm-up, then BENCH_TRANSFERS (2,000)
 * transfers posted by BENCH_CLIENTS (32) concurrent clients as fast as the gateway answers. Completion
 * is watched through GET /api/v1/outbox/stats (4 calls a second), so the clients add almost no read
 * load; latencies come from the records afterwards:
 *   - create: the HTTP time of each POST /api/v1/transactions, measured by the client;
 *   - create to confirmed: confirmedAt - createdAt of each record (the service's clock; includes the
 *     time a job waits in the outbox behind the others, since all 2,000 are posted at once);
 *   - per stage: the gaps between the record's history entries.
 * Throughput: confirmed transactions / (last confirmedAt - first createdAt).
 *
 * Targets (PostgreSQL, this 2-core machine): >= 250 confirmed/s, create p99 < 25 ms.
 *
 * Environment: BENCH_TRANSFERS, BENCH_CLIENTS, BENCH_SOURCES (32), BENCH_WARMUP (100), BENCH_RATE
 * (creates per second offered by all clients together; unset: each client posts as soon as its last
 * create answered), BENCH_WORKER_NICE (nice value of the worker process in the API + worker run; 0),
 * BENCH_DATABASES ("postgres,postgres-split,embedded"; embedded: the service with no DATABASE_URL, on
 * its own embedded server under a temp DATA_DIR; postgres-split: an API process with
 * TX_PIPELINE_WORKERS=0 and a worker process on one database), BENCH_SKIP_CEILING=1,
 * BENCH_SKIP_CREATES_ONLY=1 (skips the create path alone: support/createsOnly.ts),
 * BENCH_CPU_PROF=<dir> (service runs with --cpu-prof), BENCH_BUILT=1 (the closed-loop modes run the
 * build, `npm run build` first, as `npm run start:prod` does; default: the sources under tsx; BENCH_KEEP_BUILD=1 runs
 * dist/ as it stands, not built again: an A/B of a build changed by hand), TX_PIPELINE_WORKERS (passed to the service,
 * the worker process when split; its default otherwise), TEST_DATABASE_URL
 * (PostgreSQL server; default: the local server over its Unix socket in /var/run/postgresql when it
 * exists, else postgres://postgres@127.0.0.1:5432/postgres).
 *
 * Modes (BENCH_MODES, or the command's arguments: `npm run bench:pipeline -- waiting identical`; default
 * all): `burst` (the runs above, one per BENCH_DATABASES entry) and the closed-loop modes of
 * support/closedLoop.ts, where each client creates, waits for the outcome, then creates the next:
 * `waiting` (?waitMs=), `polling` (GET every 50 ms), `stream` (the stage WebSocket) with BENCH_LOOP_CLIENTS
 * (32) clients, and `identical` (one client repeating one transfer). The closed-loop modes share one
 * service process on PostgreSQL (fresh ledger and database, warmed up with BENCH_LOOP_WARMUP (3,000)
 * transfers: V8 keeps optimising the service, the ledger and the clients for about that long, and a
 * running service is past it; the database is analysed after it) and run BENCH_LOOP_TRANSFERS (2,000; BENCH_IDENTICAL_TRANSFERS (100) for
 * `identical`) each;
 * `waiting` is held to issue 35's targets (steady state, a warm-up of 3,000 or more: >= 450 confirmed/s,
 * p50 < 70 ms; cold start, a shorter warm-up such as 500: >= 300/s, p50 < 100 ms);
 * they print confirmed/s, create-to-outcome p50/p99 as the client saw it, the service's own
 * createdAt -> confirmedAt, CPU per transfer by process, commits, WAL bytes and rows written per transfer by table,
 * WAL bytes per transfer by table (heap, TOAST, indexes: support/walByTable.ts, pg_walinspect)
 * (PostgreSQL's statistics, published about once a second: the last few rows may be missed), and the ledger ceiling (32 clients and 1 client
 * sending pre-signed transfers and reading their status) of the same invocation. BENCH_LOOP_SPLIT=1 runs
 * the closed loop against an API process (TX_PIPELINE_WORKERS=0) beside a worker process, as the burst's
 * postgres-split does (BENCH_LOOP_SPLIT=2: beside two worker processes); BENCH_SERVICE_NODE_ARGS adds node arguments to its service process(es). BENCH_SERVICE_ENV
 * ("NAME=value NAME2=value") adds environment to every service process of any mode (A/B runs of a setting); SERVICE_NODE=<path>
 * runs the service processes (and the ledger child a service starts) on another node binary. The load average is
 * printed with every figure: on a shared machine, figures without it mean little.
 */
import type { TransactionsApi } from "../schemas/api/transactions.js"
import type { OutboxApi } from "../schemas/api/operations.js"
import type { WireDataOf } from "../test/support/client.js"
import { Keypair } from "@solana/web3.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import {
  call,
  createFundedWallet,
  createPostgresDatabase,
  type FreshDatabase,
  killAllChildren,
  mapConcurrent,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../test/support/processes.js"
import { stopEmbeddedServer } from "../src/db/embeddedServer.js"
import { allStats, cpuDelta, cpuSnapshot, type CpuSnapshot } from "./support/cpu.js"
import { benchBuilt, buildIfBenchBuilt } from "./support/built.js"
import { runCreatesOnly } from "./support/createsOnly.js"
import { runLedgerCeiling } from "./support/ledgerCeiling.js"
import { benchPostgresUrl } from "./support/postgresUrl.js"
import { mean, ms, percentile, sleep, table } from "./support/stats.js"
import { postTransfers } from "./support/transferClients.js"
import { LOOP_MODES, type LoopMode } from "./support/closedLoop.js"
import { type LoopFigures, printLoopFigures, runClosedLoops } from "./support/closedLoopRun.js"

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  return raw === undefined || raw.trim() === "" ? fallback : Number.parseInt(raw, 10)
}

type BenchMode = "burst" | LoopMode

const ALL_MODES: ReadonlyArray<BenchMode> = ["burst", ...LOOP_MODES]

const selectedModes = (): ReadonlyArray<BenchMode> => {
  const raw = process.argv.slice(2).length > 0 ? process.argv.slice(2).join(",") : (process.env.BENCH_MODES ?? "")
  const names = raw.split(",").map((s) => s.trim()).filter((s) => s !== "")
  if (names.length === 0) return ALL_MODES
  const unknown = names.filter((n) => !ALL_MODES.includes(n as BenchMode))
  if (unknown.length > 0) throw new Error(`unknown bench mode(s): ${unknown.join(", ")}; known: ${ALL_MODES.join(", ")}`)
  return names as ReadonlyArray<BenchMode>
}

const settings = {
  modes: selectedModes(),
  loopTransfers: intEnv("BENCH_LOOP_TRANSFERS", 2_000),
  loopClients: intEnv("BENCH_LOOP_CLIENTS", 32),
  loopWarmup: intEnv("BENCH_LOOP_WARMUP", 3_000),
  /** closed loop: an API process (TX_PIPELINE_WORKERS=0) beside a worker process, instead of one process */
  loopSplit: Number.parseInt(process.env.BENCH_LOOP_SPLIT ?? "0", 10) > 0,
  loopSplitWorkers: Math.max(1, Number.parseInt(process.env.BENCH_LOOP_SPLIT ?? "1", 10) || 1),
  /** extra node arguments of the closed loop's service process(es), space-separated (e.g. an --import hook) */
  loopNodeArgs: process.env.BENCH_SERVICE_NODE_ARGS?.split(" ").filter((s) => s !== ""),
  /** extra environment of every service process, space-separated NAME=value pairs (A/B runs of a setting) */
  serviceEnv: Object.fromEntries(
    (process.env.BENCH_SERVICE_ENV ?? "").split(" ").filter((s) => s.includes("=")).map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)])
  ),
  identicalTransfers: intEnv("BENCH_IDENTICAL_TRANSFERS", 100),
  transfers: intEnv("BENCH_TRANSFERS", 2_000),
  clients: intEnv("BENCH_CLIENTS", 32),
  sources: intEnv("BENCH_SOURCES", 32),
  warmup: intEnv("BENCH_WARMUP", 100),
  databases: (process.env.BENCH_DATABASES ?? "postgres,postgres-split,embedded")
    .split(",")
    .map((s) => s.trim())
    .filter((s): s is RunMode => s === "postgres" || s === "postgres-split" || s === "embedded"),
  skipCeiling: process.env.BENCH_SKIP_CEILING === "1",
  skipCreatesOnly: process.env.BENCH_SKIP_CREATES_ONLY === "1",
  cpuProfDir: process.env.BENCH_CPU_PROF,
  workers: process.env.TX_PIPELINE_WORKERS,
  /** nice value of the worker process in the API + worker deployment */
  workerNice: intEnv("BENCH_WORKER_NICE", 0),
  /** creates per second offered by all clients together; unset: as fast as the gateway answers */
  rate: process.env.BENCH_RATE === undefined ? undefined : intEnv("BENCH_RATE", 250)
}

const TARGET = { minPerSecond: 250, maxCreateP99Ms: 25 }

interface HistoryEntry {
  readonly status: string
  readonly at: string
}

/** A transaction as the list answers it (the wire form). */
type TxRecord = WireDataOf<typeof TransactionsApi.get>

interface RunFigures {
  readonly name: string
  readonly confirmed: number
  readonly failed: number
  readonly perSecond: number
  readonly wallPerSecond: number
  readonly createMs: ReadonlyArray<number>
  readonly endToEndMs: ReadonlyArray<number>
  readonly stages: ReadonlyArray<{ readonly name: string; readonly values: ReadonlyArray<number> }>
  readonly cpu: CpuSnapshot
  readonly elapsedMs: number
  readonly sql?: { readonly commitsPerTx: number; readonly insertedPerTx: number; readonly updatedPerTx: number; readonly fetchedPerTx: number }
  readonly failures: ReadonlyArray<string>
}

const STAGES: ReadonlyArray<[string, string, string]> = [
  ["queue + pre-balance + build", "pending", "simulating"],
  ["simulate", "simulating", "policy_eval"],
  ["risk + policy", "policy_eval", "signing"],
  ["sign", "signing", "submitting"],
  ["send + confirm + post-checks", "submitting", "confirmed"]
]

const listWallet = async (baseUrl: string, walletId: string): Promise<Array<TxRecord>> => {
  const all: Array<TxRecord> = []
  for (let offset = 0; ; offset += 100) {
    const page = await call<WireDataOf<typeof TransactionsApi.listByWallet>>(baseUrl, "GET", `/api/v1/wallets/${walletId}/transactions?limit=100&offset=${offset}`)
    const rows = page.body.data.transactions
    all.push(...rows)
    if (rows.length < 100) return all
  }
}

/** Waits until the outbox has `total` finished jobs (done or failed). */
const waitDrained = async (baseUrl: string, total: number, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const stats = (await call<WireDataOf<typeof OutboxApi.stats>>(baseUrl, "GET", "/api/v1/outbox/stats")).body.data as { done: number; failed: number; pending: number; processing: number }
    if (stats.done + stats.failed >= total) return
    if (Date.now() > deadline) throw new Error(`not drained within ${timeoutMs} ms: ${JSON.stringify(stats)}`)
    await sleep(250)
  }
}

const pgCounters = async (url: string) => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const { rows } = await client.query<{ xact_commit: string; tup_inserted: string; tup_updated: string; tup_fetched: string }>(
      "SELECT xact_commit, tup_inserted, tup_updated, tup_fetched FROM pg_stat_database WHERE datname = current_database()"
    )
    const row = rows[0]!
    return { commits: Number(row.xact_commit), inserted: Number(row.tup_inserted), updated: Number(row.tup_updated), fetched: Number(row.tup_fetched) }
  } finally {
    await client.end()
  }
}

type RunMode = "postgres" | "postgres-split" | "embedded"

const RUN_NAMES: Record<RunMode, string> = {
  postgres: "service on PostgreSQL",
  "postgres-split": "API + worker process, PostgreSQL",
  embedded: "service on the embedded PostgreSQL (default)"
}

const runService = async (mode: RunMode): Promise<RunFigures> => {
  const ledger = await startLedgerProcess()
  let database: FreshDatabase | undefined
  const dataDir = tempDir("custody-bench-")
  try {
    database = mode === "embedded" ? undefined : await createPostgresDatabase(benchPostgresUrl())
    const start = (role: string, workers: string | undefined) =>
      startServiceProcess({
        ...(database === undefined ? {} : { databaseUrl: database.url }),
        dataDir,
        rpcUrl: ledger.rpcUrl,
        env: { ...settings.serviceEnv, ...(workers === undefined ? {} : { TX_PIPELINE_WORKERS: workers }) },
        ...(settings.cpuProfDir === undefined ? {} : { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${path.resolve(settings.cpuProfDir, mode, role)}`] })
      })
    // Split: the clients talk to an API process without workers; a second process (same database, keys
    // and ledger) runs the pipeline workers, woken by the API process's NOTIFY.
    const workerProcess = mode === "postgres-split" ? await start("workers", settings.workers) : undefined
    if (workerProcess !== undefined && settings.workerNice !== 0) {
      // The worker process yields the CPU to the API process: a create never waits behind pipeline work.
      for (const stat of allStats().filter((s) => s.pgrp === workerProcess.pid)) os.setPriority(stat.pid, settings.workerNice)
    }
    const service = await start("api", mode === "postgres-split" ? "0" : settings.workers)
    const servicePids = [service.pid, ...(workerProcess === undefined ? [] : [workerProcess.pid])]
    try {
      const sources = await mapConcurrent(Array.from({ length: settings.sources }, (_, i) => i), 8, () => createFundedWallet(service.baseUrl, 1_000_000_000))
      const destinations = Array.from({ length: 64 }, () => Keypair.generate().publicKey.toBase58())

      // Warm-up (not measured): the JIT, connection pools and caches settle.
      if (settings.warmup > 0) {
        await postTransfers(service.baseUrl, { count: settings.warmup, clients: settings.clients, sources, destinations, offset: 500_000 })
        await waitDrained(service.baseUrl, settings.warmup, 120_000)
      }

      const sqlBefore = database === undefined ? undefined : await pgCounters(database.url)
      // On PostgreSQL, only the backends serving this run's database (the server may be shared).
      const databaseName = database === undefined ? undefined : new URL(database.url).pathname.slice(1)
      const cpuBefore = cpuSnapshot(servicePids, ledger.pid, databaseName)
      const started = performance.now()
      const { createMs, ids } = await postTransfers(service.baseUrl, {
        count: settings.transfers, clients: settings.clients, sources, destinations, offset: 0, ...(settings.rate === undefined ? {} : { rate: settings.rate })
      })
      await waitDrained(service.baseUrl, settings.warmup + settings.transfers, 600_000)
      const elapsedMs = performance.now() - started
      const cpu = cpuDelta(cpuBefore, cpuSnapshot(servicePids, ledger.pid, databaseName))
      const sqlAfter = database === undefined ? undefined : await pgCounters(database.url)

      const measured = new Set(ids)
      const records = (await mapConcurrent(sources, 4, (source) => listWallet(service.baseUrl, source.id))).flat().filter((r) => measured.has(r.id))
      const confirmed = records.filter((r) => r.status === "confirmed")
      const failed = records.filter((r) => r.status === "failed")
      const at = (iso: string) => Date.parse(iso)
      const firstCreated = Math.min(...records.map((r) => at(r.createdAt)))
      const lastConfirmed = Math.max(...confirmed.map((r) => at(r.confirmedAt ?? r.createdAt)))
      const stageAt = (record: TxRecord, status: string) => record.history.find((h) => h.status === status)?.at
      const stages = STAGES.map(([name, from, to]) => ({
        name,
        values: confirmed.flatMap((r) => {
          const a = stageAt(r, from)
          const b = stageAt(r, to)
          return a === undefined || b === undefined ? [] : [at(b) - at(a)]
        })
      }))
      const perTx = (n: number) => n / settings.transfers
      return {
        name: RUN_NAMES[mode],
        confirmed: confirmed.length,
        failed: failed.length,
        perSecond: confirmed.length / ((lastConfirmed - firstCreated) / 1000),
        wallPerSecond: confirmed.length / (elapsedMs / 1000),
        createMs,
        endToEndMs: confirmed.map((r) => at(r.confirmedAt ?? r.createdAt) - at(r.createdAt)),
        stages,
        cpu,
        elapsedMs,
        ...(sqlBefore === undefined || sqlAfter === undefined
          ? {}
          : {
              sql: {
                commitsPerTx: perTx(sqlAfter.commits - sqlBefore.commits),
                insertedPerTx: perTx(sqlAfter.inserted - sqlBefore.inserted),
                updatedPerTx: perTx(sqlAfter.updated - sqlBefore.updated),
                fetchedPerTx: perTx(sqlAfter.fetched - sqlBefore.fetched)
              }
            }),
        failures: [...new Set(failed.map((r) => r.error ?? "unknown"))].slice(0, 5)
      }
    } finally {
      await service.stop(15_000)
      await workerProcess?.stop(15_000)
    }
  } finally {
    await ledger.close()
    await database?.drop()
    await stopEmbeddedServer(dataDir)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

const loadAverage = () => os.loadavg().map((n) => n.toFixed(2)).join(", ")

const main = async () => {
  const burst = settings.modes.includes("burst")
  const loopModes = settings.modes.filter((m): m is LoopMode => m !== "burst")
  console.log(`pipeline bench: modes ${settings.modes.join(", ")}; load average at start ${loadAverage()}`)
  if (burst) {
    console.log(
      `burst: ${settings.transfers} transfer_sol, ${settings.clients} clients, ${settings.sources} source wallets, ` +
        `warm-up ${settings.warmup}, TX_PIPELINE_WORKERS=${settings.workers ?? "(service default)"}, ` +
        `creates ${settings.rate === undefined ? "as fast as the gateway answers" : `paced at ${settings.rate}/s`}`
    )
  }
  const runs: Array<RunFigures> = []
  for (const mode of burst ? settings.databases : []) {
    console.log(`running: ${mode}${mode === "embedded" ? "" : ` (${benchPostgresUrl()})`} ...`)
    runs.push(await runService(mode))
    console.log(`  load average after: ${loadAverage()}`)
  }
  let loops: ReadonlyArray<LoopFigures> = []
  if (loopModes.length > 0) {
    console.log(
      `closed loop${settings.loopSplit ? " (API process + worker process)" : ""}: ${loopModes.join(", ")}; ${settings.loopTransfers} transfers by ${settings.loopClients} clients ` +
        `(identical: ${settings.identicalTransfers} by one client), warm-up ${settings.loopWarmup} (${benchPostgresUrl()}; ${benchBuilt ? "the build" : "the sources under tsx"}) ...`
    )
    buildIfBenchBuilt()
    loops = await runClosedLoops(loopModes, {
      transfers: settings.loopTransfers,
      clients: settings.loopClients,
      warmup: settings.loopWarmup,
      identicalTransfers: settings.identicalTransfers,
      split: settings.loopSplit,
      splitWorkers: settings.loopSplitWorkers,
      serviceEnv: settings.serviceEnv,
      built: benchBuilt,
      ...(settings.loopNodeArgs === undefined ? {} : { nodeArgs: settings.loopNodeArgs }),
      ...(settings.workers === undefined ? {} : { workers: settings.workers }),
      ...(settings.cpuProfDir === undefined ? {} : { cpuProfDir: path.resolve(settings.cpuProfDir, "closed-loop") })
    })
  }
  let createsOnly: Awaited<ReturnType<typeof runCreatesOnly>> | undefined
  if (burst && !settings.skipCreatesOnly) {
    console.log("running: the create path alone (API-only process, PostgreSQL) ...")
    createsOnly = await runCreatesOnly(settings)
  }
  let ceiling: Awaited<ReturnType<typeof runLedgerCeiling>> | undefined
  let ceilingCpu: CpuSnapshot | undefined
  let ceilingOne: Awaited<ReturnType<typeof runLedgerCeiling>> | undefined
  if (!settings.skipCeiling) {
    console.log("running: ledger alone ...")
    const ledger = await startLedgerProcess()
    try {
      const before = cpuSnapshot([], ledger.pid)
      const transfers = burst ? settings.transfers : settings.loopTransfers
      ceiling = await runLedgerCeiling(ledger.rpcUrl, { transfers, clients: settings.clients, sources: settings.sources })
      ceilingCpu = cpuDelta(before, cpuSnapshot([], ledger.pid))
      if (loopModes.includes("identical")) {
        ceilingOne = await runLedgerCeiling(ledger.rpcUrl, { transfers: settings.identicalTransfers, clients: 1, sources: 1 })
      }
    } finally {
      await ledger.close()
    }
    console.log(`  load average after: ${loadAverage()}`)
  }

  if (loops.length > 0) printLoopFigures(loops, ceiling, ceilingOne, settings.loopSplit)
  if (!burst) {
    if (loops.some((l) => !l.met)) process.exitCode = 1
    return
  }

  const rows: Array<Array<string>> = [["", "confirmed", "failed", "confirmed/s", "create p50", "create p99", "e2e p50", "e2e p99", "wall s"]]
  for (const run of runs) {
    rows.push([
      run.name, String(run.confirmed), String(run.failed), run.perSecond.toFixed(0),
      ms(percentile(run.createMs, 50)), ms(percentile(run.createMs, 99)),
      ms(percentile(run.endToEndMs, 50)), ms(percentile(run.endToEndMs, 99)), (run.elapsedMs / 1000).toFixed(1)
    ])
  }
  if (ceiling !== undefined) {
    rows.push([
      "ledger alone (ceiling, send->status)", String(ceiling.transfers), "0", (ceiling.transfers / (ceiling.elapsedMs / 1000)).toFixed(0),
      "-", "-", ms(percentile(ceiling.latenciesMs, 50)), ms(percentile(ceiling.latenciesMs, 99)), (ceiling.elapsedMs / 1000).toFixed(1)
    ])
  }
  if (createsOnly !== undefined) {
    rows.push([
      "API process alone, creates only", "-", "-", `(${(createsOnly.creates / (createsOnly.elapsedMs / 1000)).toFixed(0)} creates/s)`,
      ms(percentile(createsOnly.createMs, 50)), ms(percentile(createsOnly.createMs, 99)), "-", "-", (createsOnly.elapsedMs / 1000).toFixed(1)
    ])
  }
  console.log(`\n${table(rows)}\n(latencies in ms; e2e = createdAt -> confirmedAt of each record, including the wait in the outbox)`)
  if (createsOnly !== undefined) {
    const perCreate = (seconds: number) => `${((seconds * 1000) / createsOnly.creates).toFixed(2)} ms`
    console.log(
      `create path alone: CPU per create: service ${perCreate(createsOnly.cpu.service)}, PostgreSQL ${perCreate(createsOnly.cpu.postgres)}, ` +
        `bench clients ${perCreate(createsOnly.cpu.bench)}`
    )
  }
  if (ceiling !== undefined) {
    const perTransfer = (seconds: number) => `${((seconds * 1000) / ceiling.transfers).toFixed(2)} ms`
    console.log(
      `ceiling: transfers built and signed (node:crypto) beforehand at ${ceiling.signPerSecond.toFixed(0)}/s; ` +
        `CPU per transfer: ledger ${perTransfer(ceilingCpu?.ledger ?? Number.NaN)}, bench clients ${perTransfer(ceilingCpu?.bench ?? Number.NaN)}`
    )
  }

  for (const run of runs) {
    console.log(`\n${run.name}: time per stage (ms, from the records' history)`)
    console.log(table([["stage", "mean", "p50", "p99"], ...run.stages.map((s) => [s.name, ms(mean(s.values)), ms(percentile(s.values, 50)), ms(percentile(s.values, 99))])]))
    const seconds = run.elapsedMs / 1000
    const share = (cpuSeconds: number) => `${cpuSeconds.toFixed(1)} s (${((cpuSeconds / seconds) * 100).toFixed(0)}% of a core)`
    console.log(`CPU during the run: service ${share(run.cpu.service)}, ledger ${share(run.cpu.ledger)}, PostgreSQL ${share(run.cpu.postgres)}, bench clients ${share(run.cpu.bench)}`)
    const perTransfer = (cpuSeconds: number) => `${((cpuSeconds * 1000) / run.confirmed).toFixed(2)} ms`
    console.log(
      `CPU per confirmed transfer: service ${perTransfer(run.cpu.service)}, ledger ${perTransfer(run.cpu.ledger)}, ` +
        `PostgreSQL ${perTransfer(run.cpu.postgres)}, bench clients ${perTransfer(run.cpu.bench)}`
    )
    if (run.sql !== undefined) {
      console.log(
        `SQL per transfer: ${run.sql.commitsPerTx.toFixed(1)} commits, ${run.sql.insertedPerTx.toFixed(1)} rows inserted, ` +
          `${run.sql.updatedPerTx.toFixed(1)} rows updated, ${run.sql.fetchedPerTx.toFixed(0)} rows fetched`
      )
    }
    if (run.failures.length > 0) console.log(`failures: ${run.failures.join(" | ")}`)
  }

  // Each PostgreSQL deployment (one process; API + worker process) is held to the target.
  let allMet = true
  for (const run of runs.filter((r) => r.name.includes("PostgreSQL"))) {
    const createP99 = percentile(run.createMs, 99)
    const met = run.perSecond >= TARGET.minPerSecond && createP99 < TARGET.maxCreateP99Ms && run.failed === 0
    allMet &&= met
    console.log(
      `target for ${run.name}: >= ${TARGET.minPerSecond} confirmed/s and create p99 < ${TARGET.maxCreateP99Ms} ms: ` +
        `${run.perSecond.toFixed(0)}/s, p99 ${ms(createP99)} ms: ${met ? "met" : "MISSED"}`
    )
  }
  if (!allMet || loops.some((l) => !l.met)) process.exitCode = 1
}

try {
  await main()
} finally {
  killAllChildren()
}
