/**
 * The closed-loop modes of `npm run bench:pipeline` (support/closedLoop.ts for the clients): one service
 * process on PostgreSQL with a fresh ledger and database, one funded source wallet per client, a
 * warm-up, then each selected mode in turn with the CPU of every process measured around it. The
 * service's own createdAt -> confirmedAt of each record is read afterwards, so the time a client spends
 * waiting can be told from the time the pipeline spends working.
 */
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { WireDataOf } from "../../test/support/client.js"
import { Keypair } from "@solana/web3.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import {
  call,
  createFundedWallet,
  createPostgresDatabase,
  type FreshDatabase,
  mapConcurrent,
  SERVICE_API_KEY,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../../test/support/processes.js"
import { type LoopMode, type LoopResult, runClosedLoop } from "./closedLoop.js"
import { cpuDelta, cpuSnapshot, type CpuSnapshot, mainThreads, mainThreadsDelta } from "./cpu.js"
import type { CeilingResult } from "./ledgerCeiling.js"
import { benchPostgresUrl } from "./postgresUrl.js"
import { ms, percentile, sleep, table } from "./stats.js"
import { prepareWalByTable, type TableWal, walByTable } from "./walByTable.js"

export interface LoopSettings {
  readonly transfers: number
  readonly clients: number
  readonly warmup: number
  readonly identicalTransfers: number
  readonly workers?: string
  readonly cpuProfDir?: string
  /** An API process (TX_PIPELINE_WORKERS=0) that the clients talk to, beside a worker process that runs the pipeline. */
  readonly split?: boolean
  /** Worker processes beside the API process when split (default 1). */
  readonly splitWorkers?: number
  /** Extra node arguments for the service process(es) (e.g. an --import hook while investigating). */
  readonly nodeArgs?: ReadonlyArray<string>
  /** extra environment of the service process(es) */
  readonly serviceEnv?: Readonly<Record<string, string>>
  /** The service process(es) run the build (`node dist/main.js`, as `npm run start:prod`), not the sources under tsx. */
  readonly built?: boolean
}

export interface LoopFigures {
  readonly mode: LoopMode
  readonly clients: number
  readonly confirmed: number
  readonly failed: number
  readonly perSecond: number
  readonly outcomeMs: ReadonlyArray<number>
  /** The POST's own time (the create's latency where the POST does not wait: polling, stream). */
  readonly createMs: ReadonlyArray<number>
  /** createdAt -> confirmedAt of each confirmed record (the service's clock). */
  readonly serviceMs: ReadonlyArray<number>
  readonly stages: ReturnType<typeof stageGaps>
  readonly readsPerTransfer: number
  /** Whole-table scans of `transactions` per transfer (PostgreSQL's statistics): a statement that should look rows up by key but scans. */
  readonly seqScansPerTransfer: number
  /** Commits in the run's database per confirmed transfer, and WAL bytes (the whole server's: other work on it counts too). */
  readonly commitsPerTransfer: number
  readonly walBytesPerTransfer: number
  /** Statements the service processes sent to PostgreSQL per confirmed transfer, as their /metrics count them (each a round trip). */
  readonly statementsPerTransfer: number
  /** Rows written per confirmed transfer by table, most first: where PostgreSQL's share of a transfer goes. */
  readonly tableWritesPerTransfer: ReadonlyArray<TableWrites>
  /** WAL bytes per confirmed transfer by table (walByTable.ts), or why the log could not be read. */
  readonly walPerTransferByTable: ReadonlyArray<TableWal> | string
  readonly cpu: CpuSnapshot
  /** Split layout: the worker process's CPU seconds (also counted in cpu.service). */
  readonly workerCpuSeconds?: number
  /** Each service process's main thread: seconds on a core and waiting for one, over the run's `elapsedSeconds`. */
  readonly mainThreads: ReadonlyArray<{ readonly role: string; readonly onCoreSeconds: number; readonly waitingSeconds: number }>
  readonly elapsedSeconds: number
  readonly loadAverage: string
  readonly target: string
  readonly met: boolean
}

/** A transaction as the list answers it (the wire form). */
type LoopRecord = WireDataOf<typeof TransactionsApi.get>

/** Gaps between history entries of a confirmed record, as the burst run shows them. */
const STAGES: ReadonlyArray<readonly [string, string, string]> = [
  ["queue + pre-balance + build", "pending", "simulating"],
  ["simulate", "simulating", "policy_eval"],
  ["risk + policy", "policy_eval", "signing"],
  ["sign", "signing", "submitting"],
  ["send + confirm + post-checks", "submitting", "confirmed"]
]

const stageGaps = (records: ReadonlyArray<LoopRecord>, clientTimes: LoopResult["clientTimes"]) => [
  // Outside the pipeline: the create's way in (HTTP, checks, insert) and the outcome's way out (wake, answer).
  {
    name: "client POST -> pending",
    values: records.flatMap((r) => {
      const posted = clientTimes.get(r.id)?.posted
      return posted === undefined ? [] : [Date.parse(r.createdAt) - posted]
    })
  },
  ...STAGES.map(([name, from, to]) => ({
    name,
    values: records.flatMap((r) => {
      const a = r.history.find((h) => h.status === from)?.at
      const b = r.history.find((h) => h.status === to)?.at
      return a === undefined || b === undefined ? [] : [Date.parse(b) - Date.parse(a)]
    })
  })),
  {
    name: "confirmed -> client holds it",
    values: records.flatMap((r) => {
      const settled = clientTimes.get(r.id)?.settled
      return settled === undefined || r.confirmedAt === undefined ? [] : [settled - Date.parse(r.confirmedAt)]
    })
  }
]

interface LoopTarget {
  readonly text: string
  readonly met: (perSecond: number, p50: number) => boolean
}

/**
 * Issue 35's targets for 32 waiting clients: at steady state (a warm-up of the default 3,000 transfers or
 * more) and from a cold start (a shorter warm-up; the issue measures the first transfers after 500).
 */
const waitingTarget = (warmup: number): LoopTarget =>
  warmup >= 3000
    ? { text: "steady state (issue 35): >= 450 confirmed/s, p50 < 70 ms", met: (perSecond, p50) => perSecond >= 450 && p50 < 70 }
    : { text: "cold start (issue 35): >= 300 confirmed/s, p50 < 100 ms", met: (perSecond, p50) => perSecond >= 300 && p50 < 100 }

const TARGETS: { [M in Exclude<LoopMode, "waiting">]: LoopTarget } = {
  polling: { text: ">= 150 confirmed/s", met: (perSecond) => perSecond >= 150 },
  stream: { text: "(none)", met: () => true },
  identical: { text: "p50 < 60 ms", met: (_, p50) => p50 < 60 }
}

const tableScans = async (database: FreshDatabase) => {
  const [row] = await database.query<{ seq_scan: string }>("SELECT seq_scan::text FROM pg_stat_user_tables WHERE relname = 'transactions'")
  return Number(row?.seq_scan ?? 0)
}

/** Rows a table wrote: inserted, updated (of which HOT: no index entry written), deleted. */
interface TableWrites {
  readonly table: string
  readonly inserted: number
  readonly updated: number
  readonly hot: number
  readonly deleted: number
  /** Its indexes: a non-HOT write adds an entry to each whose predicate the row meets. */
  readonly indexes: number
}

const tableWrites = async (database: FreshDatabase): Promise<ReadonlyArray<TableWrites>> => {
  const rows = await database.query<{ table: string; inserted: string; updated: string; hot: string; deleted: string; indexes: string }>(`
    SELECT s.relname AS table, s.n_tup_ins::text AS inserted, s.n_tup_upd::text AS updated, s.n_tup_hot_upd::text AS hot,
           s.n_tup_del::text AS deleted, (SELECT count(*) FROM pg_index i WHERE i.indrelid = s.relid)::text AS indexes
    FROM pg_stat_user_tables s`)
  return rows.map((row) => ({
    table: row.table, inserted: Number(row.inserted), updated: Number(row.updated), hot: Number(row.hot), deleted: Number(row.deleted), indexes: Number(row.indexes)
  }))
}

/** The writes between two snapshots per confirmed transfer, tables that wrote nothing left out. */
const writesPer = (before: ReadonlyArray<TableWrites>, after: ReadonlyArray<TableWrites>, confirmed: number): ReadonlyArray<TableWrites> => {
  const earlier = new Map(before.map((row) => [row.table, row]))
  const per = (n: number) => n / Math.max(1, confirmed)
  return after
    .map((row) => {
      const was = earlier.get(row.table)
      return {
        table: row.table, indexes: row.indexes,
        inserted: per(row.inserted - (was?.inserted ?? 0)), updated: per(row.updated - (was?.updated ?? 0)),
        hot: per(row.hot - (was?.hot ?? 0)), deleted: per(row.deleted - (was?.deleted ?? 0))
      }
    })
    .filter((row) => row.inserted + row.updated + row.deleted >= 0.05)
    .sort((a, b) => b.inserted + b.updated + b.deleted - (a.inserted + a.updated + a.deleted))
}

/** The database's commits so far and the server's WAL position (capacity model, docs/benchmarks.md). */
const databaseActivity = async (database: FreshDatabase) => {
  const [row] = await database.query<{ commits: string; lsn: string }>(
    "SELECT xact_commit::text AS commits, pg_current_wal_lsn()::text AS lsn FROM pg_stat_database WHERE datname = current_database()")
  return { commits: Number(row?.commits ?? 0), lsn: row?.lsn ?? "0/0" }
}

/** The statements the service processes sent to PostgreSQL so far (their /metrics' `custody_db_statements_total`, summed). */
const statementsSent = async (baseUrls: ReadonlyArray<string>) => {
  let sent = 0
  for (const baseUrl of baseUrls) {
    const text = await (await fetch(`${baseUrl}/metrics`, { headers: { "x-api-key": SERVICE_API_KEY } })).text()
    const line = text.split("\n").find((l) => l.startsWith("custody_db_statements_total "))
    if (line === undefined) throw new Error(`no custody_db_statements_total on ${baseUrl}/metrics`)
    sent += Number(line.slice(line.indexOf(" ") + 1))
  }
  return sent
}

const walBytesBetween = async (database: FreshDatabase, from: string, to: string) => {
  const [row] = await database.query<{ bytes: string }>("SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::text AS bytes", [from, to])
  return Number(row?.bytes ?? 0)
}

const walletRecords = async (baseUrl: string, walletId: string): Promise<Array<LoopRecord>> => {
  const all: Array<LoopRecord> = []
  for (let offset = 0; ; offset += 100) {
    const page = await call<WireDataOf<typeof TransactionsApi.listByWallet>>(baseUrl, "GET", `/api/v1/wallets/${walletId}/transactions?limit=100&offset=${offset}`)
    const rows = page.body.data.transactions
    all.push(...rows)
    if (rows.length < 100) return all
  }
}

export const runClosedLoops = async (modes: ReadonlyArray<LoopMode>, settings: LoopSettings): Promise<ReadonlyArray<LoopFigures>> => {
  const ledger = await startLedgerProcess()
  const database = await createPostgresDatabase(benchPostgresUrl())
  const databaseName = new URL(database.url).pathname.slice(1)
  const dataDir = tempDir("custody-bench-")
  try {
    const start = (role: string, workers: string | undefined) =>
      startServiceProcess({
        databaseUrl: database.url,
        dataDir,
        rpcUrl: ledger.rpcUrl,
        built: settings.built === true,
        // One stream connection per client, all under the bench's one key.
        env: { ...settings.serviceEnv, STREAM_MAX_CONNECTIONS_PER_KEY: String(Math.max(10, settings.clients + 8)), ...(workers === undefined ? {} : { TX_PIPELINE_WORKERS: workers }) },
        ...(settings.cpuProfDir === undefined && settings.nodeArgs === undefined
          ? {}
          : { nodeArgs: [...(settings.nodeArgs ?? []), ...(settings.cpuProfDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${path.join(settings.cpuProfDir, role)}`])] })
      })
    // Split: the clients talk to an API process without workers; a second process (same database, keys and
    // ledger) runs the pipeline, woken by the API process's NOTIFY; waiting requests wake on its relayed stage events.
    const workerProcesses = settings.split === true
      ? await Promise.all(Array.from({ length: settings.splitWorkers ?? 1 }, (_, i) => start(i === 0 ? "workers" : `workers-${i + 1}`, settings.workers)))
      : []
    const workerProcess = workerProcesses[0]
    const service = await start(settings.split === true ? "api" : "service", settings.split === true ? "0" : settings.workers)
    const workerPids = workerProcesses.map((worker) => worker.pid)
    const servicePids = [service.pid, ...workerPids]
    const serviceUrls = [service.baseUrl, ...workerProcesses.map((worker) => worker.baseUrl)]
    const roles: ReadonlyArray<readonly [string, number]> = [
      [settings.split === true ? "API" : "service", service.pid],
      ...workerProcesses.map((worker, i) => [`workers${workerProcesses.length > 1 ? ` ${i + 1}` : ""}`, worker.pid] as const)
    ]
    try {
      const sources = await mapConcurrent(Array.from({ length: settings.clients }, (_, i) => i), 8, () => createFundedWallet(service.baseUrl, 1_000_000_000))
      const destinations = Array.from({ length: 64 }, () => Keypair.generate().publicKey.toBase58())
      const base = { clients: settings.clients, sources, destinations }
      if (settings.warmup > 0) await runClosedLoop(service.baseUrl, { ...base, mode: "waiting", count: settings.warmup, offset: 900_000 })
      // The warm-up filled a fresh database faster than autovacuum analyses it (within a minute in a running
      // service): without fresh statistics the planner may scan tables it believes empty.
      await database.query("ANALYZE")
      const walReadable = await prepareWalByTable(database)

      const figures: Array<LoopFigures> = []
      for (const [index, mode] of modes.entries()) {
        const count = mode === "identical" ? settings.identicalTransfers : settings.transfers
        await sleep(1_500) // the previous run's (or the warm-up's) statistics published first, as after it
        const scansBefore = await tableScans(database)
        const writesBefore = await tableWrites(database)
        const before = cpuSnapshot(servicePids, ledger.pid, databaseName)
        const workerBefore = workerProcess === undefined ? undefined : cpuSnapshot(workerPids, ledger.pid, databaseName)
        const threadsBefore = roles.map(([, pgid]) => mainThreads([pgid], [ledger.pid]))
        const activityBefore = await databaseActivity(database)
        const statementsBefore = await statementsSent(serviceUrls)
        const startedAt = Date.now()
        const result = await runClosedLoop(service.baseUrl, { ...base, mode, count, offset: (index + 1) * 100_000 })
        // With extra node arguments (an investigation hook), the mode's wall-clock window, to match the hook's records.
        if (settings.nodeArgs !== undefined) console.log(`  ${mode}: ran from ${startedAt} to ${Date.now()} (epoch ms)`)
        const cpu = cpuDelta(before, cpuSnapshot(servicePids, ledger.pid, databaseName))
        const threads = roles.map(([role, pgid], i) => {
          const delta = mainThreadsDelta(threadsBefore[i]!, mainThreads([pgid], [ledger.pid]))
          return { role, onCoreSeconds: delta.reduce((n, t) => n + t.onCoreSeconds, 0), waitingSeconds: delta.reduce((n, t) => n + t.waitingSeconds, 0) }
        })
        const workerCpuSeconds = workerProcess === undefined || workerBefore === undefined
          ? undefined
          : cpuDelta(workerBefore, cpuSnapshot(workerPids, ledger.pid, databaseName)).service
        const activityAfter = await databaseActivity(database)
        const statementsAfter = await statementsSent(serviceUrls)
        const walBytes = await walBytesBetween(database, activityBefore.lsn, activityAfter.lsn)
        const walTables = walReadable
          ? await walByTable(database, activityBefore.lsn, activityAfter.lsn)
          : "pg_walinspect could not be created in the bench's database (PostgreSQL 15+ with its contrib modules, as a superuser)"
        await sleep(1_500) // PostgreSQL publishes a backend's table statistics within a second
        const scansAfter = await tableScans(database)
        const writesAfter = await tableWrites(database)
        const loadAverage = os.loadavg().map((n) => n.toFixed(2)).join(", ")
        const measured = new Set(result.ids)
        const clients = mode === "identical" ? 1 : settings.clients
        const records = (await mapConcurrent(sources.slice(0, clients), 4, (s) => walletRecords(service.baseUrl, s.id))).flat().filter((r) => measured.has(r.id))
        const confirmedRecords = records.filter((r) => r.status === "confirmed" && r.confirmedAt !== undefined)
        const serviceMs = confirmedRecords.map((r) => Date.parse(r.confirmedAt!) - Date.parse(r.createdAt))
        const perSecond = result.confirmed / (result.elapsedMs / 1000)
        const target = mode === "waiting" ? waitingTarget(settings.warmup) : TARGETS[mode]
        figures.push({
          mode, clients, confirmed: result.confirmed, failed: result.failed, perSecond, outcomeMs: result.outcomeMs, createMs: result.createMs, serviceMs,
          stages: stageGaps(confirmedRecords, result.clientTimes),
          readsPerTransfer: result.reads / result.ids.length, cpu, loadAverage, mainThreads: threads, elapsedSeconds: result.elapsedMs / 1000,
          ...(workerCpuSeconds === undefined ? {} : { workerCpuSeconds }),
          seqScansPerTransfer: (scansAfter - scansBefore) / result.ids.length,
          commitsPerTransfer: (activityAfter.commits - activityBefore.commits) / Math.max(1, result.confirmed),
          walBytesPerTransfer: walBytes / Math.max(1, result.confirmed),
          statementsPerTransfer: (statementsAfter - statementsBefore) / Math.max(1, result.confirmed),
          tableWritesPerTransfer: writesPer(writesBefore, writesAfter, result.confirmed),
          walPerTransferByTable: typeof walTables === "string"
            ? walTables
            : walTables.map((row) => {
              const per = (bytes: number) => bytes / Math.max(1, result.confirmed)
              return { table: row.table, heap: per(row.heap), toast: per(row.toast), indexes: per(row.indexes), fullPageImages: per(row.fullPageImages) }
            }),
          target: target.text,
          met: result.failed === 0 && target.met(perSecond, percentile(result.outcomeMs, 50))
        })
        console.log(`  ${mode}: ${perSecond.toFixed(0)} confirmed/s, p50 ${ms(percentile(result.outcomeMs, 50))} ms (load average ${loadAverage})`)
      }
      return figures
    } finally {
      await service.stop(15_000)
      for (const worker of workerProcesses) await worker.stop(15_000)
    }
  } finally {
    await ledger.close()
    await database.drop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

export const printLoopFigures = (loops: ReadonlyArray<LoopFigures>, ceiling: CeilingResult | undefined, ceilingOne: CeilingResult | undefined, split = false) => {
  const rows: Array<Array<string>> = [
    [split ? "closed loop (API process + worker process, PostgreSQL)" : "closed loop (service on PostgreSQL)", "clients", "confirmed", "failed", "confirmed/s", "outcome p50", "outcome p99", "POST p50", "service p50", "service p99", "GETs/transfer", "table scans/transfer", "load avg (1, 5, 15 min)"]
  ]
  for (const loop of loops) {
    rows.push([
      loop.mode, String(loop.clients), String(loop.confirmed), String(loop.failed), loop.perSecond.toFixed(0),
      ms(percentile(loop.outcomeMs, 50)), ms(percentile(loop.outcomeMs, 99)),
      loop.mode === "polling" || loop.mode === "stream" ? ms(percentile(loop.createMs, 50)) : "-", ms(percentile(loop.serviceMs, 50)), ms(percentile(loop.serviceMs, 99)),
      loop.readsPerTransfer.toFixed(1), loop.seqScansPerTransfer.toFixed(1), loop.loadAverage
    ])
  }
  for (const [name, result] of [["ledger alone, 32 clients (ceiling)", ceiling], ["ledger alone, 1 client (ceiling)", ceilingOne]] as const) {
    if (result === undefined) continue
    rows.push([
      name, name.includes("1 client") ? "1" : "32", String(result.transfers), "0", (result.transfers / (result.elapsedMs / 1000)).toFixed(0),
      ms(percentile(result.latenciesMs, 50)), ms(percentile(result.latenciesMs, 99)), "-", "-", "-", "-", "-", "-"
    ])
  }
  console.log(`\n${table(rows)}`)
  console.log("(ms; outcome = from the client's POST to the client holding the outcome; POST = the create alone where it does not wait; service = the record's createdAt -> confirmedAt)")
  console.log(table([
    ["CPU per confirmed transfer (ms)", split ? "service (API + workers)" : "service", "PostgreSQL (its backends)", "ledger", "bench clients"],
    ...loops.map((loop) => {
      const per = (seconds: number) => ((seconds * 1000) / Math.max(1, loop.confirmed)).toFixed(2)
      const service = loop.workerCpuSeconds === undefined
        ? per(loop.cpu.service)
        : `${per(loop.cpu.service)} (${per(loop.cpu.service - loop.workerCpuSeconds)} + ${per(loop.workerCpuSeconds)})`
      return [loop.mode, service, per(loop.cpu.postgres), per(loop.cpu.ledger), per(loop.cpu.bench)]
    })
  ]))
  console.log(table([
    ["main thread of each service process", "on a core (ms per transfer)", "waiting for a core (ms per transfer)", "on a core or waiting (% of the run)"],
    ...loops.flatMap((loop) =>
      loop.mainThreads.map((thread) => {
        const per = (seconds: number) => ((seconds * 1000) / Math.max(1, loop.confirmed)).toFixed(2)
        return [`${loop.mode}: ${thread.role}`, per(thread.onCoreSeconds), per(thread.waitingSeconds), (((thread.onCoreSeconds + thread.waitingSeconds) / loop.elapsedSeconds) * 100).toFixed(0)]
      })
    )
  ]))
  console.log("(a main thread on a core or waiting for one through the whole run bounds the throughput: it is the event loop every request and job passes through)")
  console.log(table([
    ["PostgreSQL per confirmed transfer", "statements (the service's)", "commits (this database)", "WAL bytes (whole server)"],
    ...loops.map((loop) => [loop.mode, loop.statementsPerTransfer.toFixed(2), loop.commitsPerTransfer.toFixed(1), loop.walBytesPerTransfer.toFixed(0)])
  ]))
  for (const loop of loops) {
    console.log(table([
      [`rows written per transfer (${loop.mode})`, "inserted", "updated", "of which HOT", "deleted", "indexes"],
      ...loop.tableWritesPerTransfer.map((row) => [
        row.table, row.inserted.toFixed(2), row.updated.toFixed(2), row.hot.toFixed(2), row.deleted.toFixed(2), String(row.indexes)
      ])
    ]))
  }
  for (const loop of loops) {
    const rows = loop.walPerTransferByTable
    if (typeof rows === "string") {
      console.log(`WAL by table (${loop.mode}): not read: ${rows}`)
      continue
    }
    const bytes = (n: number) => n.toFixed(0)
    console.log(table([
      [`WAL bytes per transfer by table (${loop.mode})`, "heap", "TOAST", "indexes", "of which full-page images", "in all"],
      ...rows
        .filter((row) => row.heap + row.toast + row.indexes >= 10)
        .map((row) => [row.table, bytes(row.heap), bytes(row.toast), bytes(row.indexes), bytes(row.fullPageImages), bytes(row.heap + row.toast + row.indexes)])
    ]))
  }
  console.log(table([
    ["stage p50 (ms, from the records' history)", ...loops[0]!.stages.map((stage) => stage.name)],
    ...loops.map((loop) => [loop.mode, ...loop.stages.map((stage) => ms(percentile(stage.values, 50)))])
  ]))
  for (const loop of loops) {
    console.log(
      `target for ${loop.mode}: ${loop.target}: ${loop.perSecond.toFixed(0)}/s, p50 ${ms(percentile(loop.outcomeMs, 50))} ms` +
        `${loop.failed > 0 ? `, ${loop.failed} failed` : ""}: ${loop.met ? "met" : "MISSED"}`
    )
  }
}
