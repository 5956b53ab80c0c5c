/**
 * Supervision in real time (the service's own scheduler and supervisor, AGENT_LOOP_INTERVAL_MS=200):
 * an autonomous agent whose budget runs out is paused with the reason and an `agent.paused` event.
 * Delta guard breaches, caused for real on the ledger, are in deltaBreach.test.ts.
 */
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../../support/harness.js"
import {
  agentActions,
  agentEvents,
  agentRecord,
  agentTransactions,
  autonomyState,
  createAgent,
  fundedWallet,
  TENANT_KEYS,
  tenant,
  waitUntil
} from "./harness.js"

const env = useServiceWithLedger({ env: { API_GATEWAY_API_KEYS: TENANT_KEYS, AGENT_LOOP_INTERVAL_MS: "200", API_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000" } })

describe("agent supervisor", () => {
  it("pauses an autonomous agent whose budget runs out, with the reason", async () => {
    const headers = tenant(0)
    await fundedWallet(env.service, headers, 1_000_000_000)
    const wallet = await fundedWallet(env.service, headers)
    // 100k, 200k, then 300k lamports: the third would pass the 500k budget.
    const agent = await createAgent(env.service, headers, {
      walletId: wallet.id, budgetLamports: 500_000,
      autonomy: { enabled: true, cadenceSeconds: 1, steps: [{ id: "pay", type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: "{{tick}}00000" }, maxRuns: 10 }] }
    })
    await waitUntil("the automatic pause", async () => (await agentRecord(env.service, agent.id, headers)).status === "paused")

    const record = await agentRecord(env.service, agent.id, headers)
    expect(record.pausedReason).toMatch(/^budget breach: /)
    const paused = await agentEvents(env.service, agent.id, "agent.paused")
    expect(paused).toHaveLength(1)
    expect(paused[0].metadata).toMatchObject({ from: "running", to: "paused", automatic: true, reason: record.pausedReason })
    expect((await agentTransactions(env.service, agent.id)).length).toBe(2)
    const actions = await agentActions(env.service, agent.id)
    expect(actions.slice(0, 3).map((a) => a.status)).toEqual(["submitted", "submitted", "failed"])
    expect(actions[2].error).toContain("POLICY_VIOLATION")
    const state = await autonomyState(env.service, agent.id, headers)
    expect(state).toMatchObject({ status: "paused", running: false, nextTickAt: null })
    expect(state.lastError).toContain("budget")
    // Paused: the actor is gone and no more runs happen.
    const runs = state.steps[0].runs
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect((await autonomyState(env.service, agent.id, headers)).steps[0].runs).toBe(runs)
  })
})
