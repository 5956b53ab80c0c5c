/**
 * A treasury move or a paper trade performed for a pipeline transaction, whose confirmation never got
 * written: the worker made the move (committed), then its write of `confirmed` was lost with its connection
 * (rolled back, unheard). The transaction runs again; the second run must find the move it made, not make
 * it again: before, an allocation of 500,000 lamports raised the agent's budget by 1,000,000, and a paper
 * trade was recorded twice.
 *
 * An administrator's lock on the agent holds the move; a second one, on the transaction's row, holds the
 * confirmation. The first lock goes (the move commits), and once the confirmation waits, the service's
 * connections are silenced and the waiting statement is ended.
 */
import pg from "pg"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { rollbackWithAnswerLost, useProxiedServiceWithLedger, waitForLockWaiters } from "../support/proxiedService.js"
import { submit, waitSettled } from "../support/transactions.js"

const env = useProxiedServiceWithLedger({ env: { DATABASE_SILENCE_CHECK_MS: "500", TX_OUTBOX_LEASE_MS: "5000" } })

const createAgent = async (name: string, budgetLamports: number) => {
  const created = await makeClient(env.service.baseUrl).agents.create({ body: { name, budgetLamports, allowedIntents: ["transfer_sol", "paper_trade"] } })
  expect(created.status).toBe(201)
  return created.body.data as { id: string; walletId: string }
}

/** Submits `body` while the agent is locked; lets the move commit and loses the confirmation's write. */
const performWithConfirmationLost = async (agentId: string, body: Record<string, unknown>) => {
  const holdTransaction = new pg.Client({ connectionString: env.database.url })
  await holdTransaction.connect()
  try {
    await env.admin.query("BEGIN")
    await env.admin.query("SELECT id FROM agents WHERE id = $1 FOR UPDATE", [agentId])
    const created = await submit(env.service.baseUrl, body)
    expect(created.status, JSON.stringify(created.body)).toBe(201)
    const txId = created.body.data.id as string
    await waitForLockWaiters(env.admin, "the off-chain move")
    await holdTransaction.query("BEGIN")
    await holdTransaction.query("SELECT id FROM transactions WHERE id = $1 FOR UPDATE", [txId])
    await env.admin.query("COMMIT")
    await rollbackWithAnswerLost(env, holdTransaction, "the confirmation")
    return txId
  } finally {
    await env.admin.query("ROLLBACK").catch(() => undefined)
    await holdTransaction.end()
  }
}

const count = async (query: string, txId: string) => Number((await env.admin.query(query, [txId])).rows[0].n)

describe("an off-chain intent whose confirmation was lost", () => {
  it("treasury_allocate: run again, it finds its allocation; the budget is raised once", async () => {
    const agent = await createAgent("once-treasury", 1_000_000)
    const txId = await performWithConfirmationLost(agent.id, {
      walletId: agent.walletId, type: "treasury_allocate", protocol: "system-program", intent: { targetAgentId: agent.id, lamports: 500_000 }
    })

    const settled = await waitSettled(env.service.baseUrl, txId, 40_000)
    expect(settled.data.status, settled.data.error).toBe("confirmed")
    expect(settled.data.result).toMatchObject({ targetBudgetBefore: "1000000", targetBudgetAfter: "1500000" })
    expect((await makeClient(env.service.baseUrl).agents.budget({ params: { agentId: agent.id } })).body.data.budgetLamports).toBe(1_500_000)
    expect(await count("SELECT count(*) AS n FROM treasury_operations WHERE tx_id = $1", txId)).toBe(1)
    expect(await count("SELECT count(*) AS n FROM audit_events WHERE tx_id = $1 AND event_type = 'treasury.allocate'", txId)).toBe(1)
    // The run that was cut did happen: the transaction's job was taken twice.
    expect(await count("SELECT attempts AS n FROM outbox_jobs WHERE tx_id = $1", txId)).toBeGreaterThanOrEqual(2)
  }, 60_000)

  it("paper_trade: run again, it finds its paper trade; one is recorded", async () => {
    const agent = await createAgent("once-paper", 0)
    const txId = await performWithConfirmationLost(agent.id, {
      walletId: agent.walletId, agentId: agent.id, type: "paper_trade", protocol: "system-program",
      intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: "11111111111111111111111111111112", lamports: 1000 } }
    })

    const settled = await waitSettled(env.service.baseUrl, txId, 40_000)
    expect(settled.data.status, settled.data.error).toBe("confirmed")
    const trades = (await makeClient(env.service.baseUrl).strategy.paperTrades({ params: { agentId: agent.id } })).body.data
    expect(trades).toHaveLength(1)
    expect(settled.data.result?.paperTrade).toMatchObject({ id: trades?.[0]?.id })
    expect(await count("SELECT count(*) AS n FROM audit_events WHERE agent_id = (SELECT agent_id FROM transactions WHERE id = $1) AND event_type = 'strategy.paper_trade'", txId)).toBe(1)
  }, 60_000)
})
