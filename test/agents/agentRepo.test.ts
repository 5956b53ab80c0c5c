/** The agent registry in SQL: insert and read back, tenant filtering, conditional transitions. */
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Autonomy } from "../../schemas/agent.js"
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

  it("answers concurrent agents-by-wallet reads (one shared statement) each with its own wallet's agents, oldest first, within its tenant", async () => {
    const first = await harness.createAgent({ tenantId: "t1" })
    const second = await harness.run(
      Effect.flatMap(AgentRepo, (repo) =>
        repo.insert({
          id: randomUUID(), tenantId: "t1", name: "second agent", walletId: first.walletId, executionMode: "supervised",
          allowedIntents: ["transfer_sol"], allowedProtocols: undefined, budgetLamports: undefined, autonomy: Schema.decodeUnknownSync(Autonomy)({})
        })
      )
    ).then((stored) => {
      if (stored === undefined) throw new Error("an agent without an idempotency key is always created")
      return stored
    })
    const other = await harness.createAgent({ tenantId: "t2" })
    const ids = (agents: ReadonlyArray<{ readonly agent: { readonly id: string } }>) => agents.map((stored) => stored.agent.id)
    const answers = await harness.run(
      Effect.flatMap(AgentRepo, (repo) =>
        Effect.all(
          [
            repo.listByWallet(first.walletId, "t1"),
            repo.listByWallet(other.walletId, "t2"),
            repo.listByWallet(other.walletId, "t1"),
            repo.listByWallet(first.walletId, null),
            repo.listByWallet(randomUUID(), null),
            repo.listByWallet(first.walletId, "t2")
          ],
          { concurrency: "unbounded" }
        )
      )
    )
    expect(answers.map(ids)).toEqual([[first.agentId, second.agent.id], [other.agentId], [], [first.agentId, second.agent.id], [], []])
    expect(answers[0]?.[1]).toMatchObject({ tenantId: "t1", agent: { name: "second agent", executionMode: "supervised", allowedIntents: ["transfer_sol"] } })
  })
})
