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
const exit = <A, E>(result: Exit.Exit<A, E>) => (Exit.isFailure(result) ? result.cause : "succeeded")
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
      Effect.flatMap(Treasury, (t) => Effect.map(t.allocate(actor, { targetAgentId: target.agentId, lamports: 500n, reason: "treasury allocation" }), (made) => made.answer))
    )
    expect(raised).toMatchObject({ targetAgentId: target.agentId, lamports: 500n, targetBudgetBefore: 0n, targetBudgetAfter: 500n })
    expect(raised.sourceAgentId).toBeUndefined()
    const moved = await harness.run(
      Effect.flatMap(Treasury, (t) => Effect.map(t.rebalance(actor, { sourceAgentId: source.agentId, targetAgentId: target.agentId, lamports: 400n, reason: "r" }), (made) => made.answer))
    )
    expect(moved).toMatchObject({ sourceBudgetBefore: 1_000n, sourceBudgetAfter: 600n, targetBudgetBefore: 500n, targetBudgetAfter: 900n })
  })

  it("makes a move once per idempotency key: repeats, even at once, answer the first; another move under the key is refused", async () => {
    const target = await harness.createAgent()
    const source = await harness.createAgent({ budgetLamports: 1_000n })
    const request = { sourceAgentId: source.agentId, targetAgentId: target.agentId, lamports: 300n, reason: "r", idempotencyKey: `key-${target.agentId}` }
    const answers = await Promise.all(Array.from({ length: 5 }, () => harness.run(Effect.flatMap(Treasury, (t) => t.rebalance(actor, request)))))
    expect(answers.filter((made) => made.created)).toHaveLength(1)
    expect(new Set(answers.map((made) => made.answer.rebalanceId)).size).toBe(1)
    expect(answers.map((made) => [made.answer.sourceBudgetAfter, made.answer.targetBudgetAfter])).toEqual(Array(5).fill([700n, 300n]))
    const after = await budgets([source.agentId, target.agentId])
    expect([after.get(source.agentId), after.get(target.agentId)]).toEqual([700n, 300n])

    const other = await harness.run(Effect.exit(Effect.flatMap(Treasury, (t) => t.rebalance(actor, { ...request, lamports: 301n }))))
    expect(JSON.stringify(exit(other))).toContain(`idempotencyKey: '${request.idempotencyKey}' was already used for treasury operation ${answers[0]!.answer.rebalanceId} with a different request`)
    const unchanged = await budgets([source.agentId, target.agentId])
    expect([unchanged.get(source.agentId), unchanged.get(target.agentId)]).toEqual([700n, 300n])
  })

  it("makes a pipeline transaction's move once: run again for the same txId, it answers the first", async () => {
    const target = await harness.createAgent()
    const move = { kind: "allocate", targetAgentId: target.agentId, lamports: 250n, reason: "treasury allocation", txId: crypto.randomUUID() } as const
    const first = await harness.run(Effect.flatMap(Treasury, (t) => t.moveBudget(actor, move)))
    const again = await harness.run(Effect.flatMap(Treasury, (t) => t.moveBudget(actor, move)))
    expect([first.created, again.created]).toEqual([true, false])
    expect(again).toMatchObject({ id: first.id, targetBudgetBefore: 0n, targetBudgetAfter: 250n })
    expect((await budgets([target.agentId])).get(target.agentId)).toBe(250n)
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
