/**
 * `npm run bench:agents`: can one process keep BENCH_AGENTS (10,000) running autonomous agents on time
 * (issue 35)? The service as a child process on PostgreSQL (fresh ledger and database). One agent is made
 * over HTTP as a user would (paper mode, a 5 s cadence, one step that records a paper transfer of
 * `{{tick}}000` lamports at most once every BENCH_AGENTS_COOLDOWN seconds (600: most ticks look, few act), one
 * rule on the balance that never fires) and started;
 * the rest are copies of its rows (each with a wallet of its own, with a real address and no key: paper
 * mode signs nothing), made by SQL. The process's scheduler takes them up at its next loop.
 * Measured: resident memory before the agents and with them (per agent), how long until every agent's
 * lease is held and its first action (every agent acts at its first tick) recorded, then over
 * BENCH_AGENTS_SECONDS (120): each agent's mean tick interval (from its durable
 * tick counter and last tick time) against its cadence (p50, p90, p99 over the agents; the target: p50
 * within 5%), how many are reported running (status running, autonomy on, a live lease: what
 * GET /agents/<id>/autonomy/state answers as `running`, also asked over HTTP of a sample), the paper
 * trades recorded, and the CPU of the service, PostgreSQL and the ledger. BENCH_CPU_PROF=<dir> profiles the service.
 */
import { Keypair } from "@solana/web3.js"
import { cpuDelta, cpuSnapshot } from "./support/cpu.js"
import { benchBuilt, buildIfBenchBuilt } from "./support/built.js"
import { benchPostgresUrl } from "./support/postgresUrl.js"
import { percentile, sleep, table } from "./support/stats.js"
import { getJson, postJson } from "./support/transferClients.js"
import { createPostgresDatabase, killAllChildren, startLedgerProcess, startServiceProcess, tempDir } from "../test/support/processes.js"
import { residentMiB, serviceNodePid } from "../test/support/processTree.js"

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  return raw === undefined || raw.trim() === "" ? fallback : Number.parseInt(raw, 10)
}

const settings = {
  agents: intEnv("BENCH_AGENTS", 10_000),
  seconds: intEnv("BENCH_AGENTS_SECONDS", 120),
  cooldownSeconds: intEnv("BENCH_AGENTS_COOLDOWN", 600),
  cadenceSeconds: 5
}

const autonomy = (destination: string) => ({
  enabled: true,
  mode: "paper",
  cadenceSeconds: settings.cadenceSeconds,
  maxActionsPerHour: 3600,
  steps: [{ id: "note", type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: "{{tick}}000" }, cooldownSeconds: settings.cooldownSeconds, maxRuns: 1_000_000 }],
  rules: [{ id: "rich", when: [{ metric: "balance_lamports", op: "gt", value: 1_000_000_000_000 }], then: { type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1000 } } }]
})

interface TickRow {
  readonly agent_id: string
  readonly tick: string
  readonly last_ms: string
}

const main = async () => {
  console.log(`agents bench: ${settings.agents} agents, ${settings.cadenceSeconds} s cadence, measured over ${settings.seconds} s`)
  buildIfBenchBuilt()
  const ledger = await startLedgerProcess()
  const database = await createPostgresDatabase(benchPostgresUrl())
  const databaseName = new URL(database.url).pathname.slice(1)
  const dataDir = tempDir("custody-bench-agents-")
  try {
    const service = await startServiceProcess({
      databaseUrl: database.url, dataDir, rpcUrl: ledger.rpcUrl, built: benchBuilt,
      // The default pool (the test processes use 10).
      env: { AGENT_LOOP_INTERVAL_MS: "5000", DATABASE_POOL_SIZE: "20" },
      // BENCH_CPU_PROF=<dir>: the service writes a CPU profile there when it stops
      ...(process.env.BENCH_CPU_PROF === undefined ? {} : { nodeArgs: ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] })
    })
    const nodePid = serviceNodePid(service.pid)
    await sleep(5_000)
    const idleMiB = residentMiB(nodePid)

    const destination = Keypair.generate().publicKey.toBase58()
    const created = await postJson(service.baseUrl, "/api/v1/agents", { name: "bench-template", autonomy: autonomy(destination) })
    if (created.status !== 201) throw new Error(`agent create: ${JSON.stringify(created.body)}`)
    const template = String(created.body.data.id)
    const started = await postJson(service.baseUrl, `/api/v1/agents/${template}/start`, {})
    if (started.status !== 200) throw new Error(`agent start: ${JSON.stringify(started.body)}`)

    const addresses = Array.from({ length: settings.agents - 1 }, () => Keypair.generate().publicKey.toBase58())
    const copyStarted = performance.now()
    for (let from = 0; from < addresses.length; from += 2_000) {
      await database.query(
        `WITH tpl AS (SELECT a FROM agents a WHERE a.id = $1),
         tpl_wallet AS (SELECT w.tenant_id, w.provider, w.key_backend FROM wallets w WHERE w.id = (SELECT wallet_id FROM agents WHERE id = $1)),
         made AS (
           SELECT gen_random_uuid() AS agent_id, gen_random_uuid() AS wallet_id, address, n
           FROM jsonb_array_elements_text($2::jsonb) WITH ORDINALITY AS t(address, n)
         ), wallets_made AS (
           INSERT INTO wallets (id, tenant_id, public_key, provider, key_backend, status, label)
           SELECT made.wallet_id, w.tenant_id, made.address, w.provider, w.key_backend, 'active', 'bench agent ' || made.n FROM made, tpl_wallet w
           RETURNING id
         )
         INSERT INTO agents
         SELECT (jsonb_populate_record(NULL::agents, to_jsonb(tpl.a) || jsonb_build_object('id', made.agent_id, 'wallet_id', made.wallet_id, 'name', 'bench ' || made.n))).*
         FROM made, tpl`,
        [template, JSON.stringify(addresses.slice(from, from + 2_000))]
      )
    }
    console.log(`copied ${addresses.length} agents in ${((performance.now() - copyStarted) / 1000).toFixed(1)} s`)

    const leasesStarted = performance.now()
    for (;;) {
      const [row] = await database.query<{ n: string }>(`SELECT count(*)::text AS n FROM agent_leases WHERE expires_at > now()`)
      if (Number(row?.n) >= settings.agents) break
      if (performance.now() - leasesStarted > 300_000) throw new Error(`only ${row?.n} leases after 5 minutes`)
      await sleep(500)
    }
    const leaseSeconds = (performance.now() - leasesStarted) / 1000
    // Every agent acts at its first tick (its step never ran): wait for those actions, then one more cadence.
    for (;;) {
      const [row] = await database.query<{ done: string; claimed: string }>(
        `SELECT count(*) FILTER (WHERE status <> 'claimed')::text AS done, count(*) FILTER (WHERE status = 'claimed')::text AS claimed FROM agent_actions`)
      if (Number(row?.done) >= settings.agents && Number(row?.claimed) === 0) break
      if (performance.now() - leasesStarted > 600_000) throw new Error(`first actions not done after 10 minutes: ${JSON.stringify(row)}`)
      await sleep(1_000)
    }
    const firstActionsSeconds = (performance.now() - leasesStarted) / 1000
    await sleep(settings.cadenceSeconds * 1000)

    const ticks = () => database.query<TickRow>(`SELECT agent_id::text, tick::text, (extract(epoch FROM last_tick_at) * 1000)::bigint::text AS last_ms FROM agent_runtime_state`)
    const before = new Map((await ticks()).map((row) => [row.agent_id, row] as const))
    const [tradesBefore] = await database.query<{ n: string }>(`SELECT count(*)::text AS n FROM paper_trades`)
    const cpuBefore = cpuSnapshot([service.pid], ledger.pid, databaseName)
    await sleep(settings.seconds * 1000)
    const cpu = cpuDelta(cpuBefore, cpuSnapshot([service.pid], ledger.pid, databaseName))
    const after = await ticks()
    const withAgentsMiB = residentMiB(nodePid)
    const [tradesAfter] = await database.query<{ n: string }>(`SELECT count(*)::text AS n FROM paper_trades`)
    const [running] = await database.query<{ n: string }>(`
      SELECT count(*)::text AS n FROM agents a JOIN agent_leases l ON l.agent_id = a.id
      WHERE a.status = 'running' AND (a.autonomy->>'enabled')::boolean AND l.expires_at > now()`)
    const sample = after.slice(0, 20)
    let reportedRunning = 0
    for (const row of sample) {
      const state = await getJson(service.baseUrl, `/api/v1/agents/${row.agent_id}/autonomy/state`)
      if (state.body.data?.running === true) reportedRunning += 1
    }

    const intervals: Array<number> = []
    let idle = 0
    for (const row of after) {
      const start = before.get(row.agent_id)
      const ticked = start === undefined ? 0 : Number(row.tick) - Number(start.tick)
      if (start === undefined || ticked <= 0) {
        idle += 1
        continue
      }
      intervals.push((Number(row.last_ms) - Number(start.last_ms)) / ticked / 1000)
    }
    const late = (p: number) => `${((percentile(intervals, p) / settings.cadenceSeconds - 1) * 100).toFixed(1)}%`
    console.log(table([
      ["measure", "value"],
      ["agents", String(settings.agents)],
      ["leases all held after", `${leaseSeconds.toFixed(1)} s`],
      ["every agent's first action done after", `${firstActionsSeconds.toFixed(1)} s`],
      ["reported running (live lease)", `${running?.n} of ${settings.agents}; over HTTP ${reportedRunning} of ${sample.length} sampled`],
      ["tick interval p50 / p90 / p99", `${percentile(intervals, 50).toFixed(2)} / ${percentile(intervals, 90).toFixed(2)} / ${percentile(intervals, 99).toFixed(2)} s`],
      ["behind the cadence p50 / p90 / p99", `${late(50)} / ${late(90)} / ${late(99)}`],
      ["agents that did not tick in the window", String(idle)],
      ["ticks per second", (intervals.reduce((n, interval) => n + settings.seconds / interval, 0) / settings.seconds).toFixed(0)],
      ["paper trades in the window", String(Number(tradesAfter?.n) - Number(tradesBefore?.n))],
      ["resident memory idle / with the agents", `${idleMiB.toFixed(0)} / ${withAgentsMiB.toFixed(0)} MiB`],
      ["memory per agent", `${(((withAgentsMiB - idleMiB) * 1024) / settings.agents).toFixed(1)} KiB`],
      ["CPU (share of one core): service / PostgreSQL / ledger", `${((cpu.service / settings.seconds) * 100).toFixed(0)}% / ${((cpu.postgres / settings.seconds) * 100).toFixed(0)}% / ${((cpu.ledger / settings.seconds) * 100).toFixed(0)}%`]
    ]))
    await service.stop()
  } finally {
    killAllChildren()
    await ledger.close()
    await database.drop()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  killAllChildren()
  process.exitCode = 1
})
