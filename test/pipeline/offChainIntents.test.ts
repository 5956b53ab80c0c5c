/**
 * treasury_allocate, treasury_rebalance and paper_trade as transactions: they confirm with a result,
 * move budget bookkeeping (never lamports on chain), and record the paper trade; bad ones fail at build.
 */
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { submit } from "../support/transactions.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)

const createAgent = async (name: string, budgetLamports: number) => {
  const created = await client().agents.create({ body: { name, budgetLamports, allowedIntents: ["transfer_sol", "paper_trade"] } })
  expect(created.status).toBe(201)
  return created.body.data as { id: string; walletId: string }
}

describe("off-chain intents through the pipeline", () => {
  it("allocates and rebalances budget, preserving the sum", async () => {
    const a = await createAgent("treasury-a", 1_000_000)
    const b = await createAgent("treasury-b", 0)
    const allocate = await submit(env.service.baseUrl, { walletId: a.walletId, type: "treasury_allocate", protocol: "system-program", intent: { targetAgentId: a.id, lamports: 500_000 } }, undefined, "?waitMs=10000")
    expect(allocate.body.data.status).toBe("confirmed")
    expect(allocate.body.data.result).toMatchObject({ targetBudgetBefore: "1000000", targetBudgetAfter: "1500000" })
    expect(allocate.body.data.signature).toBeUndefined()

    const rebalance = await submit(env.service.baseUrl, { walletId: a.walletId, type: "treasury_rebalance", protocol: "system-program", intent: { sourceAgentId: a.id, targetAgentId: b.id, lamports: 700_000 } }, undefined, "?waitMs=10000")
    expect(rebalance.body.data.status).toBe("confirmed")
    const budgetA = (await client().agents.budget({ params: { agentId: a.id } })).body.data.budgetLamports
    const budgetB = (await client().agents.budget({ params: { agentId: b.id } })).body.data.budgetLamports
    expect([budgetA, budgetB]).toEqual([800_000, 700_000])

    const tooMuch = await submit(env.service.baseUrl, { walletId: a.walletId, type: "treasury_rebalance", protocol: "system-program", intent: { sourceAgentId: b.id, targetAgentId: a.id, lamports: 9_000_000 } }, undefined, "?waitMs=10000")
    expect(tooMuch.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
  })

  it("records a paper trade for the transaction's agent and moves nothing", async () => {
    const agent = await createAgent("paper", 0)
    const paper = await submit(env.service.baseUrl, {
      walletId: agent.walletId, agentId: agent.id, type: "paper_trade", protocol: "system-program",
      intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: "11111111111111111111111111111112", lamports: 1000 } }
    }, undefined, "?waitMs=10000")
    expect(paper.body.data.status).toBe("confirmed")
    expect(paper.body.data.result?.paperTrade).toMatchObject({ agentId: agent.id, type: "transfer_sol" })
    const trades = await client().strategy.paperTrades({ params: { agentId: agent.id } })
    expect(trades.body.data).toHaveLength(1)

    // Without agentId, the wallet's agent is the one acting (docs/decisions/access.md); a wallet without one has none.
    const inferred = await submit(env.service.baseUrl, { walletId: agent.walletId, type: "paper_trade", protocol: "system-program", intent: { type: "query_balance", protocol: "system-program", intent: {} } }, undefined, "?waitMs=10000")
    expect(inferred.body.data).toMatchObject({ status: "confirmed", agentId: agent.id })
    const plain = (await client().wallets.create({ body: {} })).body.data as { id: string }
    const orphan = await submit(env.service.baseUrl, { walletId: plain.id, type: "paper_trade", protocol: "system-program", intent: { type: "query_balance", protocol: "system-program", intent: {} } }, undefined, "?waitMs=10000")
    expect(orphan.body).toMatchObject({ status: "failure", failedAt: "build" })
    expect(orphan.body.error).toContain("agentId")
  })
})
