/**
 * `npm run bench:footprint`: what the service process costs in memory and in time to start (issue 35).
 * The built service (`npm run build` runs first; BENCH_SOURCE=1 measures the sources under tsx instead):
 *   - `first start`: a new DATA_DIR, no DATABASE_URL, no CHAIN_RPC_URL (as a new user's first `npm run
 *     start:prod` with credentials: the embedded PostgreSQL's initdb, migrations, the ledger child), spawn to
 *     listening; `restart` on the same DATA_DIR, spawn to the first 200 of /health;
 *   - `restart (DATABASE_URL)`: a service on the machine's PostgreSQL and a running ledger (CHAIN_RPC_URL), its
 *     later starts on the same database, spawn to the first 200 of /health;
 *   - each restart BENCH_RESTARTS times (5): the median and the range (one restart swings by a third on a noisy
 *     machine);
 *   - for each start script of BENCH_PROFILES (`start:prod`, the 128 MiB young generation chosen for
 *     throughput, and `start:prod:lean`, 16 MiB and a slower-growing heap; the node flags, and any
 *     `NAME=value` the script sets before `node`, are read from package.json): resident
 *     memory of the service's node process idle (10 s after start, and again once the idle memory reducer has
 *     run: 30 s of an idle event loop), its highest under 32 clients each
 *     waiting for its transfer (BENCH_FOOTPRINT_TRANSFERS, 3,000), with their throughput, and idle again
 *     after that load once the reducer has run again; and its restarts on DATABASE_URL (the rows above run
 *     `start:prod`, or SERVICE_SCRIPT: V8 takes a code cache only under the flags that wrote it);
 *   - `soak` on the last profile (BENCH_SOAK_SECONDS, 1,200; 0 skips it): transfers offered at BENCH_SOAK_RATE (100/s), resident
 *     memory every 10 s: at one minute, the highest after, and the growth after the first minute (MiB a
 *     minute, least squares), the memory at each minute, and how many transfers the outbox finished against those
 *     offered (a service that fell behind would hold its backlog in the queue, not in memory), and where the
 *     memory is at one minute and at the end (the V8 heap's spaces, external memory, the rest: the service's /metrics).
 * Resident memory is the node process of the service alone (not the ledger child, not PostgreSQL).
 */
import { Keypair } from "@solana/web3.js"
import * as fs from "node:fs"
import {
  createFundedWallet,
  createPostgresDatabase,
  killAllChildren,
  mapConcurrent,
  nodeEnvOfScript,
  nodeFlagsOfScript,
  SERVICE_API_KEY,
  type ServiceProcess,
  type ServiceProcessOptions,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../test/support/processes.js"
import { freePortPair } from "../test/support/freePort.js"
import { residentMiB, serviceNodePid } from "../test/support/processTree.js"
import { buildNow } from "./support/built.js"
import { runClosedLoop } from "./support/closedLoop.js"
import { benchPostgresUrl } from "./support/postgresUrl.js"
import { ms, percentile, sleep, table } from "./support/stats.js"
import { getJson, postTransfers } from "./support/transferClients.js"

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  return raw === undefined || raw.trim() === "" ? fallback : Number.parseInt(raw, 10)
}

const built = process.env.BENCH_SOURCE !== "1"
const settings = {
  transfers: intEnv("BENCH_FOOTPRINT_TRANSFERS", 3_000),
  soakSeconds: intEnv("BENCH_SOAK_SECONDS", 1_200),
  soakRate: intEnv("BENCH_SOAK_RATE", 100),
  restarts: intEnv("BENCH_RESTARTS", 5),
  profiles: (process.env.BENCH_PROFILES ?? "start:prod,start:prod:lean").split(",").map((name) => name.trim()).filter((name) => name !== ""),
  clients: 32
}

const rows: Array<Array<string>> = [["measure", "value"]]
const report = (measure: string, value: string) => {
  rows.push([measure, value])
  console.log(`  ${measure}: ${value}`)
}

/** Spawn to the first 200 of /health (ms), and the service. */
const timeToHealth = async (options: ServiceProcessOptions): Promise<{ ms: number; service: ServiceProcess }> => {
  const started = performance.now()
  const service = await startServiceProcess({ ...options, built })
  for (;;) {
    const response = await fetch(`${service.baseUrl}/health`).catch(() => undefined)
    if (response?.status === 200) return { ms: performance.now() - started, service }
    await sleep(10)
  }
}

/** `settings.restarts` restarts of a stopped service (spawn to /health, stopped again): the median and the range. */
const restarts = async (options: ServiceProcessOptions) => {
  const times: Array<number> = []
  for (let i = 0; i < settings.restarts; i++) {
    const restarted = await timeToHealth(options)
    times.push(restarted.ms)
    await restarted.service.stop()
  }
  const sorted = [...times].sort((a, b) => a - b)
  return `${ms(percentile(sorted, 50))} ms (median of ${sorted.length}; ${ms(sorted[0] ?? Number.NaN)}-${ms(sorted.at(-1) ?? Number.NaN)})`
}

/** Samples `pid`'s resident memory every `everyMs` while `work` runs; the samples with their times (s). */
const sampling = async <T>(pid: number, everyMs: number, work: () => Promise<T>) => {
  const samples: Array<{ readonly at: number; readonly mib: number }> = []
  const started = performance.now()
  const timer = setInterval(() => samples.push({ at: (performance.now() - started) / 1000, mib: residentMiB(pid) }), everyMs)
  try {
    return { result: await work(), samples }
  } finally {
    clearInterval(timer)
  }
}

const slopePerMinute = (points: ReadonlyArray<{ readonly at: number; readonly mib: number }>) => {
  const n = points.length
  if (n < 2) return Number.NaN
  const meanX = points.reduce((s, p) => s + p.at, 0) / n
  const meanY = points.reduce((s, p) => s + p.mib, 0) / n
  const slope = points.reduce((s, p) => s + (p.at - meanX) * (p.mib - meanY), 0) / points.reduce((s, p) => s + (p.at - meanX) ** 2, 0)
  return slope * 60
}

const REDUCED = "idle: unused heap given back"

/** The start of the reducer's latest log line (its timestamp: each line's own), or undefined before its first. */
const latestReduction = (service: ServiceProcess) => {
  const output = service.output()
  const at = output.lastIndexOf(REDUCED)
  return at === -1 ? undefined : output.slice(output.lastIndexOf("\n", at) + 1, at)
}

/** The outbox's job counts (GET /api/v1/outbox/stats). */
const outboxStats = async (baseUrl: string) =>
  (await getJson(baseUrl, "/api/v1/outbox/stats")).body.data as { done: number; failed: number; pending: number; processing: number }

const MIB = 1024 * 1024

/**
 * Where the service's memory is, from its own /metrics (prom-client's V8 figures): the V8 heap's spaces as
 * committed (old generation, young generation, code, large objects, the rest), memory held outside the heap
 * by Buffers and the like (external), and the resident memory none of those explain (the allocator, thread
 * stacks, the binary's pages, the JIT's own data).
 */
const memoryBreakdown = async (baseUrl: string, pid: number) => {
  const text = await fetch(`${baseUrl}/metrics`, { headers: { "x-api-key": SERVICE_API_KEY } }).then((response) => response.text())
  const value = (pattern: RegExp) => Number(pattern.exec(text)?.[1] ?? Number.NaN)
  const space = (name: string) => value(new RegExp(`^nodejs_heap_space_size_total_bytes\\{space="${name}"\\} (\\S+)`, "m"))
  const heap = value(/^nodejs_heap_size_total_bytes (\S+)/m)
  const external = value(/^nodejs_external_memory_bytes (\S+)/m)
  const resident = residentMiB(pid)
  const old = space("old")
  const young = space("new")
  const code = space("code")
  const large = space("large_object")
  return `resident ${resident.toFixed(0)}: V8 heap ${(heap / MIB).toFixed(0)} (old ${(old / MIB).toFixed(0)}, young ${(young / MIB).toFixed(0)}, ` +
    `code ${(code / MIB).toFixed(0)}, large objects ${(large / MIB).toFixed(0)}, other spaces ${((heap - old - young - code - large) / MIB).toFixed(0)}), ` +
    `external ${(external / MIB).toFixed(0)}, outside both ${(resident - (heap + external) / MIB).toFixed(0)}`
}

/** The last sample of each minute. */
const everyMinute = (samples: ReadonlyArray<{ readonly at: number; readonly mib: number }>) =>
  samples.filter((sample, i) => Math.floor(sample.at / 60) !== Math.floor((samples[i + 1]?.at ?? Infinity) / 60)).map((sample) => sample.mib)

/**
 * Resident memory once the idle memory reducer (actors/idleMemoryReducer.ts) has run again, with how long
 * that took from now (its default: 30 s of an idle event loop). The process's output is kept as a tail
 * only, so a new run is told by a new line, not by counting lines.
 */
const afterReducer = async (service: ServiceProcess, pid: number) => {
  const before = latestReduction(service)
  const started = performance.now()
  const ran = () => {
    const latest = latestReduction(service)
    return latest !== undefined && latest !== before
  }
  while (!ran() && performance.now() - started < 90_000) await sleep(500)
  if (!ran()) return "the reducer did not run within 90 s"
  await sleep(500)
  return `${residentMiB(pid).toFixed(0)} MiB (it ran ${((performance.now() - started) / 1000).toFixed(0)} s later)`
}

const main = async () => {
  console.log(`footprint bench: the ${built ? "built service (dist/)" : "sources under tsx"}`)
  // Built first, always (BENCH_KEEP_BUILD=1 keeps dist/ as it stands).
  if (built) buildNow()

  // A new user's first start and its restart: everything embedded.
  const embeddedDir = tempDir("custody-bench-first-")
  const ledgerPort = String(await freePortPair())
  const first = await timeToHealth({ dataDir: embeddedDir, env: { LEDGER_PORT: ledgerPort } })
  report("first start (embedded PostgreSQL initdb, migrations, ledger child)", `${ms(first.ms)} ms`)
  await first.service.stop()
  report("restart to /health, data kept (embedded PostgreSQL, ledger child)", await restarts({ dataDir: embeddedDir, env: { LEDGER_PORT: ledgerPort } }))

  const ledger = await startLedgerProcess()
  const database = await createPostgresDatabase(benchPostgresUrl())
  const dataDir = tempDir("custody-bench-footprint-")
  try {
    // 32 funded wallets per young-generation size: past the tenant's default daily auto-funding cap
    const base = { databaseUrl: database.url, dataDir, rpcUrl: ledger.rpcUrl, env: { WALLET_AUTOFUND_DAILY_CAP_LAMPORTS: String(10n ** 15n) } }
    const migrated = await timeToHealth(base)
    report("first start on DATABASE_URL (migrations)", `${ms(migrated.ms)} ms`)
    await migrated.service.stop()
    report("restart to /health on DATABASE_URL, data kept", await restarts(base))

    for (const [index, profile] of settings.profiles.entries()) {
      const flags = nodeFlagsOfScript(profile)
      const scriptEnv = nodeEnvOfScript(profile)
      const { service } = await timeToHealth({ ...base, script: profile })
      const pid = serviceNodePid(service.pid)
      await sleep(10_000)
      report(`idle resident memory, ${profile} (${[...Object.entries(scriptEnv).map(([name, value]) => `${name}=${value}`), ...flags].join(" ")})`, `${residentMiB(pid).toFixed(0)} MiB`)
      report(`idle, once the idle memory reducer ran, ${profile}`, await afterReducer(service, pid))
      const sources = await mapConcurrent(Array.from({ length: settings.clients }, (_, i) => i), 8, () => createFundedWallet(service.baseUrl, 5_000_000_000))
      const destinations = Array.from({ length: 64 }, () => Keypair.generate().publicKey.toBase58())
      const loaded = await sampling(pid, 500, () =>
        runClosedLoop(service.baseUrl, { mode: "waiting", count: settings.transfers, clients: settings.clients, sources, destinations, offset: (index + 1) * 100_000 }))
      const seconds = loaded.samples.at(-1)?.at ?? Number.NaN
      report(
        `32 waiting clients, ${profile}`,
        `highest ${Math.max(...loaded.samples.map((s) => s.mib)).toFixed(0)} MiB; ${(loaded.result.confirmed / seconds).toFixed(0)} confirmed/s, p50 ${ms(percentile(loaded.result.outcomeMs, 50))} ms`
      )
      report(`idle again after the load, once the reducer ran, ${profile}`, await afterReducer(service, pid))

      if (index === settings.profiles.length - 1 && settings.soakSeconds > 0) {
        const before = await outboxStats(service.baseUrl)
        const breakdowns: Array<Promise<string>> = []
        const atOneMinute = setTimeout(() => breakdowns.push(memoryBreakdown(service.baseUrl, pid)), 60_000)
        const soak = await sampling(pid, 10_000, () =>
          postTransfers(service.baseUrl, {
            count: settings.soakRate * settings.soakSeconds, clients: settings.clients, sources, destinations, offset: 9_000_000, rate: settings.soakRate
          }))
        clearTimeout(atOneMinute)
        breakdowns.push(memoryBreakdown(service.baseUrl, pid))
        const after = await outboxStats(service.baseUrl)
        const afterMinute = soak.samples.filter((s) => s.at >= 60)
        report(
          `soak: ${settings.soakSeconds} s at ${settings.soakRate} transfers/s offered`,
          `${afterMinute[0]?.mib.toFixed(0) ?? "-"} MiB at 1 min, highest after ${Math.max(...afterMinute.map((s) => s.mib)).toFixed(0)} MiB, ` +
            `growth after the first minute ${slopePerMinute(afterMinute).toFixed(2)} MiB/min`
        )
        // A service that fell behind would hold its backlog in the outbox, not in memory: the soak says whether it kept up.
        report(
          "soak: the pipeline kept up",
          `${after.done - before.done} done and ${after.failed - before.failed} failed of ${soak.result.ids.length} offered; ${after.pending + after.processing} still queued at the end`
        )
        report("soak: resident memory each minute (MiB)", everyMinute(soak.samples).map((mib) => mib.toFixed(0)).join(" "))
        const [oneMinute, atEnd] = await Promise.all(breakdowns)
        if (atEnd !== undefined) report("soak: where the memory is at 1 min (MiB)", oneMinute ?? "-")
        report("soak: where the memory is at the end (MiB)", atEnd ?? oneMinute ?? "-")
      }
      await service.stop()
      // as this profile would restart in production: V8 takes a code cache only under the flags that wrote it
      report(`restart to /health on DATABASE_URL, data kept, ${profile}`, await restarts({ ...base, script: profile }))
    }
  } finally {
    killAllChildren()
    await ledger.close()
    await database.drop()
    for (const dir of [embeddedDir, dataDir]) fs.rmSync(dir, { recursive: true, force: true })
  }
  console.log(`\n${table(rows)}`)
}

main().catch((error: unknown) => {
  console.error(error)
  killAllChildren()
  process.exitCode = 1
})
