/** The agent registry in SQL: insert and read back, tenant filtering, conditional transitions. */
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AgentRepo } from "../../src/agents/agentRepo.js"
import { startAgents, type AgentsHarness } from "./agentHarness.js"

let harness: AgentsHarness

beforeAll(async () => {
  harness = await startAgents()
}, 60_000)

afterAll(async () => {
  await harness?.stop()
})

describe("AgentRepo", () => {
  it("stores an agent stopped with its capabilities and reads it back only within its tenant", async () => {
    const { agentId, walletId } = await harness.createAgent({ tenantId: "t1", budgetLamports: 12_345_678_901_234_567_890n })
    const found = await harness.run(Effect.flatMap(AgentRepo, (repo) => repo.find(agentId, "t1")))
    expect(found?.agent).toMatchObject({
      id: agentId,
      walletId,
      status: "stopped",
      executionMode: "autonomous",
      allowedIntents: ["transfer_sol", "transfer_spl", "query_balance"],
      budgetLamports: 12_345_678_901_234_567_890n
    })
    expect(found?.agent.autonomy).toMatchObject({ enabled: false, mode: "execute", steps: [], rules: [] })
    expect(await harness.run(Effect.flatMap(AgentRepo, (repo) => repo.find(agentId, "t2")))).toBeUndefined()
    // A null tenant (an unbound key reading across tenants) finds it.
    expect(await harness.run(Effect.flatMap(AgentRepo, (repo) => repo.find(agentId, null)))).toMatchObject({ agent: { id: agentId } })
  })

  it("applies a transition only from the allowed states", async () => {
    const { agentId } = await harness.createAgent()
    const repo = (f: (r: AgentRepo) => Effect.Effect<unknown>) => harness.run(Effect.flatMap(AgentRepo, f))
    expect(await repo((r) => r.transition(agentId, "default", ["running"], "paused", "x"))).toBeUndefined()
    expect(await repo((r) => Effect.map(r.transition(agentId, "default", ["stopped"], "running"), (a) => a?.agent.status))).toBe("running")
    const paused = (await repo((r) => r.transition(agentId, "default", ["running"], "paused", "why"))) as { agent: { pausedReason?: string } }
    expect(paused.agent.pausedReason).toBe("why")
    const running = (await repo((r) => r.listByStatusSystem("paused"))) as ReadonlyArray<{ agent: { id: string } }>
    expect(running.map((s) => s.agent.id)).toContain(agentId)
  })
})
