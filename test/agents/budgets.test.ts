/**
 * Agent budgets on a real database: concurrent reservations never spend past the budget, a release
 * gives lamports back exactly once, a counter of an earlier UTC day restarts at 0 (agent.budget.reset),
 * and unbound reservations (a create that never finished) are released by the reconciler's pass.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AgentRepo } from "../../src/agents/agentRepo.js"
import { AgentBudgets, type ReserveOutcome } from "../../src/agents/budgets.js"
import { startAgents, type AgentsHarness } from "./agentHarness.js"

let harness: AgentsHarness

beforeAll(async () => {
  harness = await startAgents()
}, 60_000)

afterAll(async () => {
  await harness?.stop()
})

const spent = (agentId: string) =>
  harness.run(
    Effect.gen(function* () {
      const stored = yield* (yield* AgentRepo).findSystem(agentId)
      return (yield* (yield* AgentBudgets).view(stored!)).spentLamportsToday
    })
  )

const reserve = (agentId: string, lamports: bigint) => harness.run(Effect.flatMap(AgentBudgets, (b) => b.reserve(agentId, lamports)))

const eventCount = (agentId: string, eventType: string) =>
  harness.run(
    Effect.flatMap(SqlClient.SqlClient, (sql) =>
      Effect.map(sql<{ n: string }>`SELECT count(*)::text AS n FROM audit_events WHERE agent_id = ${agentId} AND event_type = ${eventType}`, (rows) => Number(rows[0].n))
    )
  )

describe("agent budgets", () => {
  it("lets concurrent reservations spend at most the budget, and refuses the rest with remaining and required", async () => {
    const { agentId } = await harness.createAgent({ budgetLamports: 10_000n })
    const outcomes: ReadonlyArray<ReserveOutcome> = await Promise.all(Array.from({ length: 25 }, () => reserve(agentId, 1_000n)))
    expect(outcomes.filter((o) => o._tag === "Reserved")).toHaveLength(10)
    const refused = outcomes.filter((o) => o._tag === "Exceeded")
    expect(refused).toHaveLength(15)
    expect(refused[0]).toMatchObject({ remainingLamports: 0n, requiredLamports: 1_000n })
    expect(await spent(agentId)).toBe(10_000n)
  })

  it("releases a reservation exactly once", async () => {
    const { agentId } = await harness.createAgent({ budgetLamports: 5_000n })
    const outcome = await reserve(agentId, 3_000n)
    if (outcome._tag !== "Reserved") throw new Error("expected a reservation")
    const released = await Promise.all(
      Array.from({ length: 5 }, () => harness.run(Effect.flatMap(AgentBudgets, (b) => b.release(outcome.reservationId, "test"))))
    )
    expect(released.reduce((a, b) => a + b, 0)).toBe(1)
    expect(await spent(agentId)).toBe(0n)
  })

  it("restarts a counter of an earlier UTC day at 0 and records agent.budget.reset", async () => {
    const { agentId } = await harness.createAgent({ budgetLamports: 5_000n })
    expect((await reserve(agentId, 4_000n))._tag).toBe("Reserved")
    expect((await reserve(agentId, 4_000n))._tag).toBe("Exceeded")
    await harness.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE agents SET spent_day = '2000-01-01' WHERE id = ${agentId}`))
    expect(await spent(agentId)).toBe(0n)
    expect((await reserve(agentId, 4_000n))._tag).toBe("Reserved")
    expect(await spent(agentId)).toBe(4_000n)
    expect(await eventCount(agentId, "agent.budget.reset")).toBe(1)
  })

  it("sweeps earlier days to 0 (midnight reset) without touching today's counters", async () => {
    const stale = await harness.createAgent({ budgetLamports: 5_000n })
    const fresh = await harness.createAgent({ budgetLamports: 5_000n })
    await reserve(stale.agentId, 1_000n)
    await reserve(fresh.agentId, 2_000n)
    await harness.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE agents SET spent_day = '2000-01-01' WHERE id = ${stale.agentId}`))
    await harness.run(Effect.flatMap(AgentBudgets, (b) => b.resetForNewDay))
    const raw = await harness.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ id: string; spent: string }>`SELECT id, spent_lamports_today::text AS spent FROM agents WHERE id IN (${stale.agentId}, ${fresh.agentId})`)
    )
    expect(Object.fromEntries(raw.map((r) => [r.id, r.spent]))).toEqual({ [stale.agentId]: "0", [fresh.agentId]: "2000" })
    expect(await eventCount(stale.agentId, "agent.budget.reset")).toBe(1)
  })

  it("releases reservations never bound to a transaction once they are old, and leaves young ones", async () => {
    const { agentId } = await harness.createAgent({ budgetLamports: 5_000n })
    const old = await reserve(agentId, 1_000n)
    await reserve(agentId, 2_000n)
    if (old._tag !== "Reserved") throw new Error("expected a reservation")
    await harness.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE agent_budget_reservations SET created_at = now() - interval '1 hour' WHERE id = ${old.reservationId}`)
    )
    await harness.run(Effect.flatMap(AgentBudgets, (b) => b.releaseFailedReservations))
    expect(await spent(agentId)).toBe(2_000n)
  })

  it("spends without limit when the agent has no budget, still counting", async () => {
    const { agentId } = await harness.createAgent()
    expect((await reserve(agentId, 10n ** 15n))._tag).toBe("Reserved")
    expect(await spent(agentId)).toBe(10n ** 15n)
  })
})
