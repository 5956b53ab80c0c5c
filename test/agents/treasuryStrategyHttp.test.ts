/**
 * Treasury, strategy and budget release over HTTP against the real service and ledger: allocate and
 * rebalance with the spec's fields and validation, backtests by the spec's rule, paper trades capped at
 * 500 per agent (oldest dropped), and the budget of an execute that failed before submission released.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { reconcileBudgets } from "../../actors/budgetReconciler.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { waitSettled } from "../support/transactions.js"

const DESTINATION = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)

const newAgent = async (body: Record<string, unknown> = {}) =>
  (await client().agents.create({ body: { name: "treasurer", ...body } })).body.data as { id: string; walletId: string }

describe("treasury over HTTP", () => {
  it("allocates and rebalances with the spec's fields and the budget figures", async () => {
    const a = await newAgent({ budgetLamports: 1_000 })
    const b = await newAgent()
    const allocated = await client().treasury.allocate({ body: { targetAgentId: b.id, lamports: 300 } })
    expect(allocated.status).toBe(201)
    expect(allocated.body.data).toMatchObject({ targetAgentId: b.id, lamports: 300, reason: "treasury allocation", targetBudgetBefore: 0, targetBudgetAfter: 300 })
    expect(allocated.body.data.allocationId).toMatch(/^[0-9a-f-]{36}$/)
    const moved = await client().treasury.rebalance({ body: { sourceAgentId: a.id, targetAgentId: b.id, lamports: 250 } })
    expect(moved.body.data).toMatchObject({
      sourceAgentId: a.id, targetAgentId: b.id, lamports: 250, reason: "treasury rebalance",
      sourceBudgetBefore: 1_000, sourceBudgetAfter: 750, targetBudgetBefore: 300, targetBudgetAfter: 550
    })
    expect((await client().agents.budget({ params: { agentId: b.id } })).body.data.budgetLamports).toBe(550)
    const events = (await client().audit.list({ query: { eventType: "treasury.rebalance" } })).body.data.events
    expect(events.map((e) => e.metadata.operationId)).toContain(moved.body.data.rebalanceId)
  })

  it("makes a move once per idempotencyKey: a repeat answers it (200), another move under the key is a 400 naming it", async () => {
    const a = await newAgent({ budgetLamports: 1_000 })
    const b = await newAgent()
    const body = { sourceAgentId: a.id, targetAgentId: b.id, lamports: 400, idempotencyKey: `move-${b.id}` }
    const first = await client().treasury.rebalance({ body })
    expect(first.status).toBe(201)
    const again = await client().treasury.rebalance({ body })
    expect(again.status).toBe(200)
    expect(again.body.data).toEqual(first.body.data)
    const other = await client().treasury.rebalance({ body: { ...body, lamports: 401 } })
    expect(other.status).toBe(400)
    expect(other.body.error).toMatch(/^idempotencyKey: .* was already used for treasury operation .* with a different request/)
    const allocation = { targetAgentId: b.id, lamports: 100, idempotencyKey: `allocate-${b.id}` }
    expect((await client().treasury.allocate({ body: allocation })).status).toBe(201)
    expect((await client().treasury.allocate({ body: allocation })).status).toBe(200)
    // A key is the caller's, not the kind's: used by a rebalance, it is another request for an allocation.
    expect((await client().treasury.allocate({ body: { ...allocation, idempotencyKey: body.idempotencyKey } })).status).toBe(400)
    expect((await client().agents.budget({ params: { agentId: a.id } })).body.data.budgetLamports).toBe(600)
    expect((await client().agents.budget({ params: { agentId: b.id } })).body.data.budgetLamports).toBe(500)
    const events = (await client().audit.list({ query: { eventType: "treasury.rebalance" } })).body.data.events
    expect(events.filter((e) => e.metadata.operationId === first.body.data.rebalanceId)).toHaveLength(1)
  })

  it("validates reason, lamports and the agents", async () => {
    const a = await newAgent({ budgetLamports: 10 })
    const b = await newAgent()
    expect((await client().treasury.rebalance({ body: { sourceAgentId: a.id, targetAgentId: b.id, lamports: 0 } })).body.error).toMatch(/^lamports/)
    expect((await client().treasury.rebalance({ body: { sourceAgentId: a.id, targetAgentId: b.id, lamports: 1, reason: "" } })).body.error).toMatch(/^reason/)
    expect((await client().treasury.allocate({ body: { targetAgentId: b.id, lamports: 1, reason: "x".repeat(257) } })).status).toBe(400)
    expect((await client().treasury.rebalance({ body: { sourceAgentId: a.id, targetAgentId: a.id, lamports: 1 } })).status).toBe(400)
    const tooMuch = await client().treasury.rebalance({ body: { sourceAgentId: a.id, targetAgentId: b.id, lamports: 11 } })
    expect(tooMuch.status).toBe(400)
    expect(tooMuch.body.error).toContain("budget of 10 lamports")
    expect((await client().treasury.allocate({ body: { targetAgentId: "00000000-0000-4000-8000-000000000000", lamports: 1 } })).status).toBe(404)
  })
})

describe("strategy over HTTP", () => {
  it("scores a backtest by the spec's rule and refuses one without steps", async () => {
    const agent = await newAgent()
    const step = { type: "transfer_sol", protocol: "system-program", timestamp: "2025-01-01T00:00:00Z" } as const
    const run = await client().strategy.backtest({ body: {
      walletId: agent.walletId, name: "mixed", minimumPassRate: 0.6,
      steps: [{ ...step, simulatedPnlLamports: 100 }, step, { ...step, simulatedPnlLamports: -30 }]
    } })
    expect(run.status).toBe(201)
    expect(run.body.data).toMatchObject({ totalSteps: 3, passedSteps: 2, failedSteps: 1, totalPnlLamports: 70, passed: true, minimumPassRate: 0.6 })
    expect(run.body.data.passRate).toBeCloseTo(2 / 3)
    const empty = await client().strategy.backtest({ body: { walletId: agent.walletId, name: "empty", steps: [] } })
    expect(empty.status).toBe(400)
    expect(empty.body.error).toMatch(/^steps/)
  })

  it("keeps paper trades in SQL, at most 500 per agent with the oldest dropped", async () => {
    const agent = await newAgent()
    const order = { agentId: agent.id, walletId: agent.walletId, type: "transfer_sol", protocol: "system-program" } as const
    const first = await client().strategy.paperExecute({ body: { ...order, intent: { destination: DESTINATION, lamports: 1 } } })
    expect(first.status).toBe(201)
    expect(first.body.data).toMatchObject({ agentId: agent.id, walletId: agent.walletId, type: "transfer_sol", intent: { lamports: 1 } })
    expect(first.body.data.outcome).toMatchObject({ simulated: true, spendLamports: 1 })
    for (let i = 2; i <= 502; i++) {
      await client().strategy.paperExecute({ body: { ...order, intent: { destination: DESTINATION, lamports: i } } })
    }
    const trades = (await client().strategy.paperTrades({ params: { agentId: agent.id } })).body.data
    expect(trades).toHaveLength(500)
    expect(trades[0].intent.lamports).toBe(3)
    expect(trades[499].intent.lamports).toBe(502)
    const bad = await api(env.service.baseUrl, "POST", "/api/v1/strategy/paper/execute", { ...order, intent: { destination: DESTINATION } })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^intent\.lamports/)
  }, 120_000)
})

describe("budget release", () => {
  it("gives back the budget of an execute that failed before submission", async () => {
    // The agent's own wallet is new and unfunded: the transfer fails before it is signed or sent.
    const agent = await newAgent({ budgetLamports: 5_000_000 })
    const executed = await client().agents.execute({ params: { agentId: agent.id }, body: {
      type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 2_000_000 }
    } })
    expect(executed.body.data.agentId).toBe(agent.id)
    const settled = await waitSettled(env.service.baseUrl, executed.body.data.id)
    expect(settled.body.data.status).toBe("failed")
    expect(["validation", "build", "policy", "sign"]).toContain(settled.body.data.failedAt)
    expect((await client().agents.budget({ params: { agentId: agent.id } })).body.data.spentLamportsToday).toBe(2_000_000)
    await env.service.runtime.runPromise(reconcileBudgets)
    expect((await client().agents.budget({ params: { agentId: agent.id } })).body.data.spentLamportsToday).toBe(0)
    await env.service.runtime.runPromise(reconcileBudgets)
    expect((await client().agents.budget({ params: { agentId: agent.id } })).body.data.spentLamportsToday).toBe(0)
    const released = await env.service.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ n: string }>`SELECT count(*)::text AS n FROM agent_budget_reservations WHERE agent_id = ${agent.id} AND released_at IS NOT NULL`)
    )
    expect(released[0].n).toBe("1")
  })
})
