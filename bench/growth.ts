/**
 * `npm run bench:growth`: does the service keep its speed when its tables hold months of history (issue
 * 35)? Two databases on one PostgreSQL server and one ledger: an empty one and a grown one, into which
 * the generator (bench/support/growthData.ts) writes BENCH_GROWTH_TRANSACTIONS (1,000,000) transactions
 * with history, proofs and outbox jobs and BENCH_GROWTH_AUDIT_EVENTS (10,000,000) audit events, then
 * VACUUM ANALYZE. Then a service process on each, both up at once, each with a fresh funded wallet warmed
 * up with BENCH_GROWTH_WARMUP (300) confirmed transfers, and one client measuring them in
 * BENCH_GROWTH_ROUNDS (6) alternating rounds (empty then grown, grown then empty, ...), so a change in the
 * machine's speed falls on both alike; BENCH_GROWTH_REQUESTS (300) of each operation in all, on each:
 *   - `create`: POST /api/v1/transactions?waitMs=0 (a transfer accepted: its row, outbox job and event);
 *   - `get`: GET /api/v1/transactions/<id>;
 *   - `wallet list`: GET /api/v1/wallets/<id>/transactions?limit=50 (first page, with its count);
 *   - `audit by tx`: GET /api/v1/audit/events?txId=<id>; `audit newest`: GET /api/v1/audit/events?limit=100;
 *   - `outbox claim`: the workers' claim statement (src/pipeline/outbox.ts claimMany, copied below; named and
 *     with parameters, as the service runs it) for 16 jobs, run by this process in a transaction rolled
 *     back, with 32 pending jobs in it;
 *   - the grown database also answers for its heavy wallet (a tenth of the transactions): its first page
 *     and a page deep by cursor.
 * Then `WAL after a checkpoint`, on each in turn: CHECKPOINT, then BENCH_GROWTH_WAL_TRANSFERS (200)
 * transfers by 8 clients waiting for their outcomes: WAL bytes and full-page images per transfer
 * (pg_stat_wal, the whole server's): what random keys cost once the indexes are large (src/db/rowIds.ts).
 * Prints p50 and p99 of each, the ratio of the p50s (the target: within 1.2), the tables' sizes, the
 * outbox's dead rows and vacuums, and the plans of the list and audit statements. TEST_DATABASE_URL names
 * the server (else the local one).
 */
import { Keypair } from "@solana/web3.js"
import pg from "pg"
import { LIST_TOTAL_CAP } from "../schemas/common.js"
import { createFundedWallet, createPostgresDatabase, killAllChildren, mapConcurrent, startLedgerProcess, startServiceProcess, tempDir } from "../test/support/processes.js"
import { generateGrowth, HEAVY_WALLET_SQL } from "./support/growthData.js"
import { benchBuilt, buildIfBenchBuilt } from "./support/built.js"
import { benchPostgresUrl } from "./support/postgresUrl.js"
import { ms, percentile, table } from "./support/stats.js"
import { getJson, postJson } from "./support/transferClients.js"

const intEnv = (name: string, fallback: number) => {
  const raw = process.env[name]
  return raw === undefined || raw.trim() === "" ? fallback : Number.parseInt(raw, 10)
}

const settings = {
  transactions: intEnv("BENCH_GROWTH_TRANSACTIONS", 1_000_000),
  auditEvents: intEnv("BENCH_GROWTH_AUDIT_EVENTS", 10_000_000),
  wallets: intEnv("BENCH_GROWTH_WALLETS", 10_000),
  warmup: intEnv("BENCH_GROWTH_WARMUP", 300),
  requests: intEnv("BENCH_GROWTH_REQUESTS", 300),
  walTransfers: intEnv("BENCH_GROWTH_WAL_TRANSFERS", 200),
  rounds: intEnv("BENCH_GROWTH_ROUNDS", 6),
  chunk: 100_000
}

// The claim of src/pipeline/outbox.ts (claimMany), as the workers run it: keep the two alike. It runs as
// they run it too, a named statement with parameters ($1 the lease, $2 the jobs wanted): each of the
// service's connections prepares it once (src/db/preparedStatements.ts), so it is not planned per call.
const CLAIM = `
  WITH claimed AS (
    UPDATE outbox_jobs SET status = 'processing', attempts = attempts + 1, lease_id = gen_random_uuid(),
      lease_expires_at = now() + $1::interval, updated_at = now()
    WHERE id IN (
      SELECT id FROM outbox_jobs
      WHERE (status = 'pending' AND available_at <= now()) OR (status = 'processing' AND lease_expires_at < now())
      ORDER BY created_at, id
      LIMIT $2
      FOR UPDATE SKIP LOCKED
    )
    RETURNING *
  ), counted AS (
    UPDATE transactions SET attempts = attempts + 1 WHERE id IN (SELECT tx_id FROM claimed) RETURNING *
  )
  SELECT c.id AS job_id, c.tx_id AS job_tx_id, c.action AS job_action, c.status AS job_status, c.attempts AS job_attempts,
    c.lease_id AS job_lease_id, c.lease_expires_at AS job_lease_expires_at, c.created_at AS job_created_at,
    t.*, w.public_key AS wallet_public_key,
    least((r.config->>'deltaVarianceBpsThreshold')::int, (d.config->>'deltaVarianceBpsThreshold')::int) AS delta_variance_bps,
    least((r.config->>'maxQuoteAgeSeconds')::int, (d.config->>'maxQuoteAgeSeconds')::int) AS max_quote_age_seconds
  FROM claimed c
  LEFT JOIN counted t ON t.id = c.tx_id
  LEFT JOIN wallets w ON w.id = t.wallet_id
  LEFT JOIN protocol_risk_configs r ON r.tenant_id = t.tenant_id AND r.protocol = t.protocol
  LEFT JOIN protocol_risk_configs d ON d.tenant_id = '*' AND d.protocol = t.protocol
  ORDER BY c.created_at, c.id`
const CLAIM_VALUES = ["30000 milliseconds", 16]
/** The claim with its values written in, for EXPLAIN. */
const CLAIM_WITH_VALUES = CLAIM.replace("$1::interval", `'${CLAIM_VALUES[0]}'::interval`).replace("LIMIT $2", `LIMIT ${CLAIM_VALUES[1]}`)

/** 32 pending jobs (of the measured wallet's transactions), for a claim inside a transaction rolled back. */
const CLAIM_TEST_SET_UP = `INSERT INTO outbox_jobs (id, tx_id, action, status) SELECT gen_random_uuid(), id, 'execute', 'pending' FROM transactions ORDER BY created_at DESC LIMIT 32`

type Timings = Map<string, Array<number>>

const timed = async <T>(timings: Timings, name: string, run: () => Promise<T>): Promise<T> => {
  const started = performance.now()
  const result = await run()
  const list = timings.get(name) ?? []
  list.push(performance.now() - started)
  timings.set(name, list)
  return result
}

const transfer = (walletId: string, destination: string, lamports: number) => ({
  walletId, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports }
})

const settle = async (baseUrl: string, ids: ReadonlyArray<string>) => {
  for (const id of ids) {
    for (;;) {
      const status = (await getJson(baseUrl, `/api/v1/transactions/${id}`)).body.data?.status
      if (status === "confirmed" || status === "failed") break
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
}

/** The server's WAL counters (pg_stat_wal: the whole server's, so only a server with nothing else on it gives the service's). */
const walCounters = async (client: pg.Client) => {
  const { rows } = await client.query<{ bytes: string; fpi: string }>("SELECT wal_bytes::text AS bytes, wal_fpi::text AS fpi FROM pg_stat_wal")
  return { bytes: Number(rows[0]?.bytes ?? 0), fpi: Number(rows[0]?.fpi ?? 0) }
}

/**
 * WAL written per confirmed transfer just after a checkpoint: the first change to each page after one
 * writes the whole page (a full-page image), so a transfer whose inserts land on cold pages of large
 * indexes (random keys) writes far more than one whose keys land on the pages the last inserts touched.
 * BENCH_GROWTH_WAL_TRANSFERS (200) transfers, 8 clients each waiting for its outcome.
 */
const walAfterCheckpoint = async (baseUrl: string, databaseUrl: string, walletId: string, destination: string) => {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query("CHECKPOINT")
    const before = await walCounters(client)
    await mapConcurrent(Array.from({ length: settings.walTransfers }, (_, i) => i), 8, async (i) => {
      const answer = await postJson(baseUrl, "/api/v1/transactions?waitMs=30000", transfer(walletId, destination, 3_000_000 + i))
      if (answer.body.data?.status !== "confirmed") throw new Error(`transfer not confirmed: ${JSON.stringify(answer.body)}`)
    })
    const after = await walCounters(client)
    return { bytesPerTransfer: (after.bytes - before.bytes) / settings.walTransfers, fullPagesPerTransfer: (after.fpi - before.fpi) / settings.walTransfers }
  } finally {
    await client.end()
  }
}

/** A service under measurement: its database, its measured wallet, and the connection its claims run on. */
interface Target {
  readonly label: "empty" | "grown"
  readonly baseUrl: string
  readonly databaseUrl: string
  readonly walletId: string
  readonly destination: string
  readonly heavyWalletId: string | null
  readonly claims: pg.Client
  readonly timings: Timings
  cursor: string | null
  created: number
}

/** A fresh funded wallet warmed up with BENCH_GROWTH_WARMUP confirmed transfers (so both wallets look alike and the process is warm). */
const prepare = async (label: Target["label"], baseUrl: string, databaseUrl: string, heavyWalletId: string | null): Promise<Target> => {
  const wallet = await createFundedWallet(baseUrl, 5_000_000_000)
  const destination = Keypair.generate().publicKey.toBase58()
  for (let i = 0; i < settings.warmup; i++) {
    const answer = await postJson(baseUrl, "/api/v1/transactions?waitMs=30000", transfer(wallet.id, destination, 1_000_000 + i))
    if (answer.body.data?.status !== "confirmed") throw new Error(`warm-up transfer not confirmed: ${JSON.stringify(answer.body)}`)
  }
  const claims = new pg.Client({ connectionString: databaseUrl })
  await claims.connect()
  return { label, baseUrl, databaseUrl, walletId: wallet.id, destination, heavyWalletId, claims, timings: new Map(), cursor: null, created: 0 }
}

/** One round on one service: `n` of each operation in turn. */
const round = async (target: Target, n: number) => {
  const { baseUrl, timings } = target
  const ids: Array<string> = []
  for (let i = 0; i < n; i++) {
    const answer = await timed(timings, "create", () =>
      postJson(baseUrl, "/api/v1/transactions?waitMs=0", transfer(target.walletId, target.destination, 2_000_000 + target.created++)))
    ids.push(String(answer.body.data?.id))
  }
  await settle(baseUrl, ids)
  for (let i = 0; i < n; i++) await timed(timings, "get", () => getJson(baseUrl, `/api/v1/transactions/${ids[i]}`))
  for (let i = 0; i < n; i++) await timed(timings, "wallet list", () => getJson(baseUrl, `/api/v1/wallets/${target.walletId}/transactions?limit=50`))
  for (let i = 0; i < n; i++) await timed(timings, "audit by tx", () => getJson(baseUrl, `/api/v1/audit/events?txId=${ids[i]}`))
  for (let i = 0; i < n; i++) await timed(timings, "audit newest", () => getJson(baseUrl, "/api/v1/audit/events?limit=100"))
  if (target.heavyWalletId !== null) {
    for (let i = 0; i < n; i++) {
      await timed(timings, "heavy wallet list", () => getJson(baseUrl, `/api/v1/wallets/${target.heavyWalletId}/transactions?limit=50`))
      // Ten pages on at each step: the cursor goes deep into the wallet's history.
      const page = await timed(timings, "heavy wallet, by cursor", () =>
        getJson(baseUrl, `/api/v1/wallets/${target.heavyWalletId}/transactions?limit=50&offset=450${target.cursor === null ? "" : `&cursor=${target.cursor}`}`))
      target.cursor = (page.body.data?.nextCursor as string | null | undefined) ?? null
    }
  }
  for (let i = 0; i < n; i++) {
    await target.claims.query("BEGIN")
    await target.claims.query(
      `INSERT INTO outbox_jobs (id, tx_id, action, status) SELECT gen_random_uuid(), id, 'execute', 'pending' FROM transactions WHERE wallet_id = $1 LIMIT 32`,
      [target.walletId]
    )
    await timed(timings, "outbox claim", () => target.claims.query({ name: "outbox_claim", text: CLAIM, values: CLAIM_VALUES }))
    await target.claims.query("ROLLBACK")
  }
}

/** What autovacuum has done to the outbox by now, and what is left dead in it (the claim's table). */
const outboxVacuum = async (target: Target) => {
  const { rows } = await target.claims.query<{ live: string; dead: string; vacuums: string; autovacuum: string; claimable: string }>(`
    SELECT n_live_tup::text AS live, n_dead_tup::text AS dead, (vacuum_count + autovacuum_count)::text AS vacuums,
      current_setting('autovacuum') AS autovacuum,
      pg_size_pretty(pg_relation_size('outbox_claimable')) AS claimable
    FROM pg_stat_user_tables WHERE relname = 'outbox_jobs'`)
  return rows[0]!
}

const main = async () => {
  console.log(`growth bench: ${settings.transactions} transactions, ${settings.auditEvents} audit events; ${settings.requests} requests per operation in ${settings.rounds} rounds`)
  buildIfBenchBuilt()
  const ledger = await startLedgerProcess()
  const emptyDatabase = await createPostgresDatabase(benchPostgresUrl())
  const grownDatabase = await createPostgresDatabase(benchPostgresUrl())
  const start = (database: { url: string }) =>
    startServiceProcess({ databaseUrl: database.url, dataDir: tempDir("custody-bench-growth-"), rpcUrl: ledger.rpcUrl, built: benchBuilt })
  const targets: Array<Target> = []
  try {
    // The grown database: one confirmed transfer to copy, then the generated history.
    const seeding = await start(grownDatabase)
    const seed = await createFundedWallet(seeding.baseUrl, 1_000_000_000)
    const seeded = await postJson(seeding.baseUrl, "/api/v1/transactions?waitMs=30000", transfer(seed.id, Keypair.generate().publicKey.toBase58(), 1_000_000))
    if (seeded.body.data?.status !== "confirmed") throw new Error(`seed transfer not confirmed: ${JSON.stringify(seeded.body)}`)
    await seeding.stop()

    const client = new pg.Client({ connectionString: grownDatabase.url })
    await client.connect()
    const started = performance.now()
    try {
      await client.query("SET synchronous_commit = off")
      const [template] = (await client.query(`SELECT id, tenant_id FROM transactions WHERE status = 'confirmed' AND type = 'transfer_sol' ORDER BY created_at LIMIT 1`)).rows as Array<{ id: string; tenant_id: string }>
      if (template === undefined) throw new Error("no confirmed transfer to copy")
      await generateGrowth((text, values) => client.query(text, values), settings, { txId: template.id, tenantId: template.tenant_id }, (line) =>
        console.log(`  ${((performance.now() - started) / 1000).toFixed(0)} s: ${line}`))
      await client.query("VACUUM ANALYZE")
      console.log(`generated in ${((performance.now() - started) / 1000).toFixed(0)} s`)
      const sizes = await client.query(`
        SELECT relname AS table, n_live_tup::text AS rows, pg_size_pretty(pg_total_relation_size(relid)) AS size
        FROM pg_stat_user_tables WHERE relname IN ('transactions', 'outbox_jobs', 'audit_events', 'wallets') ORDER BY relname`)
      console.log(table([["table", "rows", "size with indexes"], ...sizes.rows.map((r: Record<string, string>) => [r.table!, r.rows!, r.size!])]))
    } finally {
      await client.end()
    }
    const [heavy] = await grownDatabase.query<{ id: string }>(`SELECT ${HEAVY_WALLET_SQL} AS id`)

    // Both services up at once, measured in alternating rounds: a change in the machine's speed during the
    // run (a shared host's) falls on both databases alike instead of on one of them.
    const empty = await prepare("empty", (await start(emptyDatabase)).baseUrl, emptyDatabase.url, null)
    targets.push(empty)
    const grown = await prepare("grown", (await start(grownDatabase)).baseUrl, grownDatabase.url, heavy!.id)
    targets.push(grown)
    const perRound = Math.ceil(settings.requests / settings.rounds)
    for (let r = 0; r < settings.rounds; r++) {
      for (const target of r % 2 === 0 ? [empty, grown] : [grown, empty]) await round(target, perRound)
      console.log(`  round ${r + 1} / ${settings.rounds}`)
    }
    const emptyWal = await walAfterCheckpoint(empty.baseUrl, empty.databaseUrl, empty.walletId, empty.destination)
    const grownWal = await walAfterCheckpoint(grown.baseUrl, grown.databaseUrl, grown.walletId, grown.destination)

    const names = [...new Set([...empty.timings.keys(), ...grown.timings.keys()])]
    const cell = (timings: Timings, name: string, p: number) => ms(percentile(timings.get(name) ?? [], p))
    console.log(table([
      ["operation", "empty p50 ms", "grown p50 ms", "ratio", "empty p99", "grown p99"],
      ...names.map((name) => {
        const a = percentile(empty.timings.get(name) ?? [], 50)
        const b = percentile(grown.timings.get(name) ?? [], 50)
        return [name, cell(empty.timings, name, 50), cell(grown.timings, name, 50), Number.isNaN(a) ? "-" : (b / a).toFixed(2), cell(empty.timings, name, 99), cell(grown.timings, name, 99)]
      })
    ]))
    console.log(table([
      [`WAL per confirmed transfer just after a checkpoint (${settings.walTransfers} transfers)`, "empty", "grown", "ratio"],
      ["bytes", emptyWal.bytesPerTransfer.toFixed(0), grownWal.bytesPerTransfer.toFixed(0), (grownWal.bytesPerTransfer / emptyWal.bytesPerTransfer).toFixed(2)],
      ["full-page images", emptyWal.fullPagesPerTransfer.toFixed(1), grownWal.fullPagesPerTransfer.toFixed(1), "-"]
    ]))
    const vacuums = await Promise.all([empty, grown].map(outboxVacuum))
    console.log(table([
      ["outbox_jobs at the end", "live rows", "dead rows", "vacuums", "the server's autovacuum", "outbox_claimable's size"],
      ...[empty, grown].map((target, i) => [target.label, vacuums[i]!.live, vacuums[i]!.dead, vacuums[i]!.vacuums, vacuums[i]!.autovacuum, vacuums[i]!.claimable])
    ]))
    for (const [label, statement] of [
      ["wallet list (heavy wallet)", `SELECT id FROM transactions WHERE wallet_id = ${HEAVY_WALLET_SQL} ORDER BY created_at DESC, id LIMIT 51`],
      ["audit newest", `SELECT seq FROM audit_events ORDER BY seq DESC LIMIT 101`],
      // The heavy wallet's newest transaction, found by the wallet's index (transactions has none on created_at alone).
      ["audit by tx", `SELECT seq FROM audit_events WHERE tx_id = (SELECT id FROM transactions WHERE wallet_id = ${HEAVY_WALLET_SQL} ORDER BY created_at DESC LIMIT 1) ORDER BY seq DESC LIMIT 101`],
      ["audit count (capped)", `SELECT count(*) FROM (SELECT 1 FROM audit_events LIMIT ${LIST_TOTAL_CAP + 1}) AS matches`],
      ["outbox claim", `${CLAIM_TEST_SET_UP}; EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${CLAIM_WITH_VALUES}`]
    ] as const) {
      const client = new pg.Client({ connectionString: grownDatabase.url })
      await client.connect()
      try {
        await client.query("BEGIN")
        const results = await client.query(statement.startsWith("INSERT") ? statement : `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${statement}`)
        const plan = (Array.isArray(results) ? results[results.length - 1] : results) as pg.QueryResult<{ "QUERY PLAN": string }>
        console.log(`\nplan of ${label}:\n${plan.rows.map((row) => row["QUERY PLAN"]).join("\n")}`)
      } finally {
        await client.query("ROLLBACK")
        await client.end()
      }
    }
  } finally {
    for (const target of targets) await target.claims.end().catch(() => undefined)
    killAllChildren()
    await ledger.close()
    await emptyDatabase.drop()
    await grownDatabase.drop()
  }
}

main().catch((error: unknown) => {
  console.error(error)
  killAllChildren()
  process.exitCode = 1
})
