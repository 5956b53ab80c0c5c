/**
 * Durable runs in real time: the service stopped mid-run and started again on the same data never runs
 * a step past its maxRuns; a run claimed before a crash (after or before its execute) is sent exactly
 * once, and a paper run's paper trade recorded once; two service processes on one PostgreSQL run each agent in one process only, each action once.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, it } from "vitest"
import { actionIdempotencyKey } from "../../../src/agents/runtime/planning.js"
import { ActorRegistry } from "../../../src/supervision/actorRegistry.js"
import { startTestLedger } from "../../support/ledger.js"
import { createPostgresDatabase } from "../../support/processes.js"
import { makeClient } from "../../support/client.js"
import { type RunningService, startService } from "../../support/service.js"
import {
  agentActions,
  agentTransactions,
  autonomyState,
  createAgent,
  fundedWallet,
  inService,
  ledgerBalance,
  TENANT_KEYS,
  tenant,
  waitAgentSettled,
  waitUntil
} from "./harness.js"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
// A short outbox lease: a transaction the stopped service left in flight is taken over sooner.
const ENV = { API_GATEWAY_API_KEYS: TENANT_KEYS, AGENT_LOOP_INTERVAL_MS: "200", API_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000", TX_OUTBOX_LEASE_MS: "5000" }

beforeAll(async () => {
  ledger = await startTestLedger()
})

afterAll(async () => {
  await ledger?.close()
})

const transferStep = (maxRuns: number) => ({
  enabled: true, cadenceSeconds: 1,
  // The amount varies by tick: identical transfers within one blockhash would be one signature.
  steps: [{ id: "pay", type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: "{{tick}}000000" }, maxRuns }]
})

/** Sum of the lamports of the agent's transactions (what the ledger must show at the destination). */
const sentLamports = (service: RunningService, agentId: string) =>
  inService(
    service,
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      sql<{ total: string }>`SELECT COALESCE(sum((intent->>'lamports')::numeric), 0)::text AS total FROM transactions WHERE agent_id = ${agentId} AND status = 'confirmed'`
    ).pipe(Effect.map((rows) => Number(rows[0].total)), Effect.orDie)
  )

// The four are independent (each its own service and database, its own tenant, wallets and agents; only
// the ledger is shared) and mostly wait for agent ticks, so they run side by side. Each uses its own
// `expect`, as concurrent tests need. Each starts its services inside the test: on a machine whose two cores
// other files load, that start can take most of a minute (a CI run's embedded pass once took 55 s).
const TEST_TIMEOUT_MS = 150_000
describe.concurrent("durable runs", () => {
  it("a restart mid-run never runs a step past its maxRuns", async ({ expect }) => {
    const first = await startService({ rpcUrl: ledger.rpcUrl, env: ENV })
    const headers = tenant(0)
    const sink = await fundedWallet(first, headers, 1_000_000_000)
    const wallet = await fundedWallet(first, headers)
    const before = await ledgerBalance(ledger.rpcUrl, sink.publicKey)
    const agent = await createAgent(first, headers, { walletId: wallet.id, autonomy: transferStep(3) })
    await waitUntil("the first run", async () => (await agentActions(first, agent.id)).length >= 1)
    await first.stop({ keepData: true })

    const second = await startService({ rpcUrl: ledger.rpcUrl, env: ENV, reuse: { dataDir: first.dataDir, database: first.database } })
    try {
      await waitUntil("three runs", async () => (await autonomyState(second, agent.id, headers)).steps[0].runs === 3)
      const tick = (await autonomyState(second, agent.id, headers)).tick
      await waitUntil("two more ticks", async () => (await autonomyState(second, agent.id, headers)).tick >= tick + 2)
      await waitAgentSettled(second, agent.id)
      const transactions = await agentTransactions(second, agent.id)
      expect(transactions.map((tx) => tx.idempotency_key)).toEqual([1, 2, 3].map((run) => actionIdempotencyKey(agent.id, "step", "pay", run)))
      expect(transactions.every((tx) => tx.status === "confirmed")).toBe(true)
      expect((await agentActions(second, agent.id)).map((a) => [a.run, a.status])).toEqual([[1, "submitted"], [2, "submitted"], [3, "submitted"]])
      expect((await ledgerBalance(ledger.rpcUrl, sink.publicKey)) - before).toBe(await sentLamports(second, agent.id))
    } finally {
      await second.stop()
    }
  }, TEST_TIMEOUT_MS)

  it("a run claimed before a crash is sent once, whether or not its execute had happened", async ({ expect }) => {
    const service = await startService({ rpcUrl: ledger.rpcUrl, env: ENV })
    try {
      const headers = tenant(1)
      const sink = await fundedWallet(service, headers, 1_000_000_000)
      const wallet = await fundedWallet(service, headers)
      const agent = await createAgent(service, headers, { walletId: wallet.id, autonomy: transferStep(2) }, false)
      const intent = (lamports: number) => ({ destination: sink.publicKey, lamports: String(lamports) })
      // Run 1: the crash came after execute (the transaction exists). Run 2: before execute.
      const executed = await makeClient(service.baseUrl, headers).agents.execute({ params: { agentId: agent.id }, body: {
        type: "transfer_sol", protocol: "system-program", intent: intent(1_100_000), idempotencyKey: actionIdempotencyKey(agent.id, "step", "pay", 1)
      } })
      expect(executed.status).toBe(201)
      await inService(
        service,
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO agent_step_runs (agent_id, step_id, runs, last_run_at) VALUES (${agent.id}, 'pay', 2, now())`
          for (const [run, lamports] of [[1, 1_100_000], [2, 1_200_000]]) {
            yield* sql`
              INSERT INTO agent_actions (id, agent_id, source, source_id, run, kind, status, type, protocol, intent, idempotency_key, at)
              VALUES (${randomUUID()}, ${agent.id}, 'step', 'pay', ${run}, 'execute', 'claimed', 'transfer_sol', 'system-program',
                ${JSON.stringify(intent(lamports))}::jsonb, ${actionIdempotencyKey(agent.id, "step", "pay", run)}, now())
            `
          }
        }).pipe(Effect.orDie)
      )
      await makeClient(service.baseUrl, headers).agents.start({ params: { agentId: agent.id }, body: {} })
      await waitUntil("the claimed runs to be sent", async () => (await agentActions(service, agent.id)).every((a) => a.status !== "claimed"))
      await waitUntil("a tick after", async () => (await autonomyState(service, agent.id, headers)).tick >= 2)
      await waitAgentSettled(service, agent.id)
      const transactions = await agentTransactions(service, agent.id)
      expect(transactions.map((tx) => [tx.idempotency_key, tx.status])).toEqual([
        [actionIdempotencyKey(agent.id, "step", "pay", 1), "confirmed"],
        [actionIdempotencyKey(agent.id, "step", "pay", 2), "confirmed"]
      ])
      expect(transactions[0].id).toBe(executed.body.data.id)
    } finally {
      await service.stop()
    }
  }, TEST_TIMEOUT_MS)

  it("a paper run claimed before a crash records its paper trade once, whether or not it had recorded it", async ({ expect }) => {
    const service = await startService({ rpcUrl: ledger.rpcUrl, env: ENV })
    try {
      const headers = tenant(3)
      const wallet = await fundedWallet(service, headers)
      const agent = await createAgent(service, headers, { walletId: wallet.id, autonomy: { ...transferStep(2), mode: "paper" } }, false)
      const key = (run: number) => actionIdempotencyKey(agent.id, "step", "pay", run)
      const recordedBeforeCrash = randomUUID()
      // Run 1: the crash came after its paper trade was recorded. Run 2: before.
      await inService(
        service,
        Effect.gen(function* () {
          const sql = yield* SqlClient.SqlClient
          yield* sql`INSERT INTO agent_step_runs (agent_id, step_id, runs, last_run_at) VALUES (${agent.id}, 'pay', 2, now())`
          for (const run of [1, 2]) {
            yield* sql`
              INSERT INTO agent_actions (id, agent_id, source, source_id, run, kind, status, type, protocol, intent, idempotency_key, at)
              VALUES (${randomUUID()}, ${agent.id}, 'step', 'pay', ${run}, 'paper', 'claimed', 'transfer_sol', 'system-program',
                ${JSON.stringify({ destination: wallet.publicKey, lamports: String(run * 1_000_000) })}::jsonb, ${key(run)}, now())
            `
          }
          yield* sql`
            INSERT INTO paper_trades (id, tenant_id, agent_id, wallet_id, type, protocol, intent, outcome, once_key)
            SELECT ${recordedBeforeCrash}, tenant_id, id, wallet_id, 'transfer_sol', 'system-program',
              ${JSON.stringify({ destination: wallet.publicKey, lamports: "1000000" })}::jsonb, '{"simulated":true}'::jsonb, ${`run:${key(1)}`}
            FROM agents WHERE id = ${agent.id}
          `
        }).pipe(Effect.orDie)
      )
      await makeClient(service.baseUrl, headers).agents.start({ params: { agentId: agent.id }, body: {} })
      await waitUntil("the claimed runs to be sent", async () => (await agentActions(service, agent.id)).every((a) => a.status !== "claimed"))
      await waitUntil("a tick after", async () => (await autonomyState(service, agent.id, headers)).tick >= 2)
      const trades = await inService(
        service,
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string; once_key: string }>`SELECT id, once_key FROM paper_trades WHERE agent_id = ${agent.id} ORDER BY seq`).pipe(Effect.orDie)
      )
      expect(trades.map((trade) => trade.once_key)).toEqual([`run:${key(1)}`, `run:${key(2)}`])
      expect(trades[0]?.id).toBe(recordedBeforeCrash)
      expect((await agentActions(service, agent.id)).map((action) => [action.run, action.status])).toEqual([[1, "paper"], [2, "paper"]])
    } finally {
      await service.stop()
    }
  }, TEST_TIMEOUT_MS)

  // Two services on one fresh database of their own (on TEST_DATABASE_URL's server, or the run's embedded one).
  it("two processes on one PostgreSQL run each agent once", async ({ expect }) => {
    const postgres = await createPostgresDatabase()
    const shared = { ...ENV, DATABASE_URL: postgres.url }
    const first = await startService({ rpcUrl: ledger.rpcUrl, env: shared })
    const second = await startService({ rpcUrl: ledger.rpcUrl, env: shared, reuse: { dataDir: first.dataDir, database: first.database } })
    try {
      const headers = tenant(2)
      await fundedWallet(first, headers, 1_000_000_000)
      const agents = []
      // When each agent started ticking (it ticks on a 1 s grid from then on).
      const startedAt = new Map<string, number>()
      for (let i = 0; i < 4; i++) {
        const wallet = await fundedWallet(first, headers)
        const started = Date.now()
        const agent = await createAgent(i % 2 === 0 ? first : second, headers, { walletId: wallet.id, autonomy: transferStep(3) })
        startedAt.set(agent.id, started)
        agents.push(agent)
      }
      for (const agent of agents) await waitUntil("three runs", async () => (await autonomyState(first, agent.id, headers)).steps[0].runs === 3)
      await new Promise((resolve) => setTimeout(resolve, 1_500))

      // Each agent's actor lives in exactly one of the two processes.
      const actorNames = async (service: RunningService) =>
        (await inService(service, Effect.flatMap(ActorRegistry, (registry) => registry.list))).map((a) => a.name).filter((n) => n.startsWith("agent:"))
      const names = [...(await actorNames(first)), ...(await actorNames(second))].sort()
      expect(names).toEqual(agents.map((agent) => `agent:${agent.id}`).sort())

      for (const agent of agents) {
        await waitAgentSettled(first, agent.id)
        const transactions = await agentTransactions(first, agent.id)
        expect(transactions.map((tx) => [tx.idempotency_key, tx.status])).toEqual(
          [1, 2, 3].map((run) => [actionIdempotencyKey(agent.id, "step", "pay", run), "confirmed"])
        )
        // One ticking process: about one tick a second since the agent started, not two.
        const elapsedSeconds = (Date.now() - startedAt.get(agent.id)!) / 1000
        expect((await autonomyState(first, agent.id, headers)).tick).toBeLessThanOrEqual(Math.ceil(elapsedSeconds) + 2)
      }
    } finally {
      await second.stop({ keepData: true })
      await first.stop()
      await postgres.drop()
    }
  }, TEST_TIMEOUT_MS)
})
