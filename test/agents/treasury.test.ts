/**
 * Treasury on a real database: allocation raises a budget (from 0 when there was none), a rebalance
 * moves budget with exact before/after figures, refuses more than the source has, and concurrent
 * rebalances in every direction never create or destroy budget (a property over random schedules).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Exit } from "effect"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Treasury } from "../../src/agents/treasury.js"
import { startAgents, type AgentsHarness } from "./agentHarness.js"

let harness: AgentsHarness
const actor = { readTenant: null, traceId: "test" }

beforeAll(async () => {
  harness = await startAgents()
}, 60_000)

afterAll(async () => {
  await harness?.stop()
})

const budgets = (ids: ReadonlyArray<string>) =>
  harness.run(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(
        sql<{ id: string; budget: string | null }>`SELECT id, budget_lamports::text AS budget FROM agents WHERE id IN ${sql.in(ids)}`,
        (rows) => new Map(rows.map((r) => [r.id, BigInt(r.budget ?? "0")]))
      )
    )
  )

describe("treasury", () => {
  it("allocates without a source from 0, and with one moves budget, reporting before and after", async () => {
    const target = await harness.createAgent()
    const source = await harness.createAgent({ budgetLamports: 1_000n })
    const raised = await harness.run(
      Effect.flatMap(Treasury, (t) => t.allocate(actor, { targetAgentId: target.agentId, lamports: 500n, reason: "treasury allocation" }))
    )
    expect(raised).toMatchObject({ targetAgentId: target.agentId, lamports: 500n, targetBudgetBefore: 0n, targetBudgetAfter: 500n })
    expect(raised.sourceAgentId).toBeUndefined()
    const moved = await harness.run(
      Effect.flatMap(Treasury, (t) => t.rebalance(actor, { sourceAgentId: source.agentId, targetAgentId: target.agentId, lamports: 400n, reason: "r" }))
    )
    expect(moved).toMatchObject({ sourceBudgetBefore: 1_000n, sourceBudgetAfter: 600n, targetBudgetBefore: 500n, targetBudgetAfter: 900n })
  })

  it("refuses to move more than the source's budget, changing nothing", async () => {
    const target = await harness.createAgent({ budgetLamports: 10n })
    const source = await harness.createAgent({ budgetLamports: 100n })
    const exit = await harness.run(
      Effect.exit(Effect.flatMap(Treasury, (t) => t.rebalance(actor, { sourceAgentId: source.agentId, targetAgentId: target.agentId, lamports: 101n, reason: "r" })))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(JSON.stringify(exit)).toContain("ValidationError")
    const after = await budgets([source.agentId, target.agentId])
    expect([after.get(source.agentId), after.get(target.agentId)]).toEqual([100n, 10n])
  })

  it("never creates or destroys budget under concurrent rebalances", async () => {
    const agents = await Promise.all(Array.from({ length: 4 }, () => harness.createAgent({ budgetLamports: 1_000n })))
    const ids = agents.map((a) => a.agentId)
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ from: fc.nat(3), to: fc.nat(3), lamports: fc.integer({ min: 1, max: 700 }) }), { minLength: 1, maxLength: 20 }),
        async (moves) => {
          await Promise.all(
            moves
              .filter((m) => m.from !== m.to)
              .map((m) =>
                harness.run(
                  Effect.ignore(
                    Effect.flatMap(Treasury, (t) =>
                      t.rebalance(actor, { sourceAgentId: ids[m.from], targetAgentId: ids[m.to], lamports: BigInt(m.lamports), reason: "property" })
                    )
                  )
                )
              )
          )
          const after = await budgets(ids)
          const values = ids.map((id) => after.get(id) ?? -1n)
          expect(values.reduce((a, b) => a + b, 0n)).toBe(4_000n)
          for (const value of values) expect(value >= 0n).toBe(true)
        }
      ),
      { numRuns: 15 }
    )
  }, 120_000)
})
