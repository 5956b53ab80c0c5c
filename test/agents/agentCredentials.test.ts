/**
 * The control plane is separate from execution (issue 11 items 2 and 3), tried over HTTP as an agent
 * holding its own key would: a key bound to an agent (`<key>:<tenant>:<scopes>:agent=<id>`) executes and
 * reads its own agent's state and nothing else; it cannot raise its budget, switch to autonomous, issue
 * itself a manifest, resume itself or approve. Every path that spends from an agent's wallet applies the
 * agent's checks (POST /transactions with or without `agentId`), an `agentId` must belong to the wallet,
 * and treasury intents need the `treasury` scope and an operator credential wherever they come from.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestLedger } from "../support/ledger.js"
import { type EndpointInput, makeClient } from "../support/client.js"
import type { AgentsApi } from "../../schemas/api/agents.js"
import { ADMIN_KEY, api, type RunningService, startService } from "../support/service.js"
import { createWallet, waitSettled } from "../support/transactions.js"

const AGENT_KEY = { "x-api-key": "agent-key" }
const NO_TREASURY_KEY = { "x-api-key": "ops-no-treasury" }

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService
interface Agent {
  id: string
  walletId: string
  budgetLamports?: number
  executionMode: string
  status: string
}
let supervised: Agent
let other: Agent
let queryOnly: Agent
let plainWallet: string
/** A funded account, so small transfers to it need no rent exemption. */
let destination: string

const as = (headers: Record<string, string>) => ({
  get: (path: string) => api(service.baseUrl, "GET", path, undefined, headers),
  post: (path: string, body: unknown = {}) => api(service.baseUrl, "POST", path, body, headers),
  put: (path: string, body: unknown) => api(service.baseUrl, "PUT", path, body, headers)
})
const admin = () => as({ "x-api-key": ADMIN_KEY })
const self = () => as(AGENT_KEY)
const transfer = (lamports: number) => ({ type: "transfer_sol", protocol: "system-program", intent: { destination, lamports } }) as const

const expectOperatorRequired = (response: Awaited<ReturnType<typeof api>>) => {
  expect(response.status).toBe(403)
  expect(response.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "gateway", data: null })
  expect(response.body.error).toContain("Operator credential required")
}

beforeAll(async () => {
  ledger = await startTestLedger()
  // First start: the operator creates the agents (an agent's id exists only once it is created).
  const first = await startService({ rpcUrl: ledger.rpcUrl })
  const base = first.baseUrl
  const createAgent = async (body: EndpointInput<typeof AgentsApi.create>["body"]) => {
    const created = await makeClient(base).agents.create({ body })
    if (created.status !== 201) throw new Error(JSON.stringify(created.body))
    return created.body.data as Agent
  }
  supervised = await createAgent({ name: "supervised", walletId: (await createWallet(base, 2_000_000_000)).id, executionMode: "supervised", budgetLamports: 1_000_000 })
  const otherWallet = await createWallet(base, 2_000_000_000)
  destination = otherWallet.publicKey
  other = await createAgent({ name: "other", walletId: otherWallet.id, budgetLamports: 1_000_000 })
  queryOnly = await createAgent({ name: "query only", allowedIntents: ["query_balance"] })
  plainWallet = (await createWallet(base)).id
  await first.stop({ keepData: true })
  // Then the deployment gives the supervised agent its own key: every scope, but bound to the agent.
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    reuse: { dataDir: first.dataDir, database: first.database },
    env: {
      API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;agent-key:default:all:agent=${supervised.id};ops-no-treasury:default:transactions,agents`
    }
  })
}, 180_000)

afterAll(async () => {
  await service?.stop()
  await ledger?.close()
})

describe("an agent's own key", () => {
  it("cannot raise its budget, switch to autonomous, issue or revoke itself a manifest, start, stop or create agents", async () => {
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).agents.updateCapabilities({ params: { agentId: supervised.id }, body: { allowedIntents: ["transfer_sol"], budgetLamports: 10_000_000_000 } }))
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).agents.updateCapabilities({ params: { agentId: supervised.id }, body: { allowedIntents: ["transfer_sol"], executionMode: "autonomous" } }))
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).agents.issueManifest({ params: { agentId: supervised.id }, body: { allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"] } }))
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).agents.revokeManifest({ params: { agentId: supervised.id }, body: { nonce: "n" } }))
    for (const action of ["start", "stop", "pause", "resume"]) expectOperatorRequired(await api(service.baseUrl, "POST", `/api/v1/agents/${supervised.id}/${action}`, {}, AGENT_KEY))
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).agents.create({ body: { name: "spawned" } }))
    const after = (await makeClient(service.baseUrl).agents.get({ params: { agentId: supervised.id } })).body.data as Agent
    expect(after).toMatchObject({ budgetLamports: 1_000_000, executionMode: "supervised", status: "stopped" })
  })

  it("cannot resume itself after a pause", async () => {
    expect((await makeClient(service.baseUrl).agents.start({ params: { agentId: other.id }, body: {} })).body.data.status).toBe("running")
    // The other agent is not this key's: it is invisible, and resuming is an operator's act anyway.
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).agents.resume({ params: { agentId: other.id }, body: {} }))
    expect((await makeClient(service.baseUrl).agents.start({ params: { agentId: supervised.id }, body: {} })).body.data.status).toBe("running")
    expect((await makeClient(service.baseUrl).agents.pause({ params: { agentId: supervised.id }, body: { reason: "breach" } })).body.data.status).toBe("paused")
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).agents.resume({ params: { agentId: supervised.id }, body: {} }))
    expect((await makeClient(service.baseUrl, AGENT_KEY).agents.get({ params: { agentId: supervised.id } })).body.data.status).toBe("paused")
    const refused = await makeClient(service.baseUrl, AGENT_KEY).agents.execute({ params: { agentId: supervised.id }, body: transfer(1_000) })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.body.error).toContain("is paused")
    expect((await makeClient(service.baseUrl).agents.resume({ params: { agentId: supervised.id }, body: {} })).body.data.status).toBe("running")
    expect((await makeClient(service.baseUrl).agents.stop({ params: { agentId: supervised.id }, body: {} })).body.data.status).toBe("stopped")
    expect((await makeClient(service.baseUrl).agents.stop({ params: { agentId: other.id }, body: {} })).body.data.status).toBe("stopped")
  })

  it("reads its own agent only", async () => {
    expect((await makeClient(service.baseUrl, AGENT_KEY).agents.get({ params: { agentId: supervised.id } })).status).toBe(200)
    expect((await makeClient(service.baseUrl, AGENT_KEY).agents.budget({ params: { agentId: supervised.id } })).body.data).toMatchObject({ agentId: supervised.id, budgetLamports: 1_000_000 })
    expect((await makeClient(service.baseUrl, AGENT_KEY).agents.autonomyState({ params: { agentId: supervised.id } })).status).toBe(200)
    const listed = (await makeClient(service.baseUrl, AGENT_KEY).agents.list({})).body.data.agents
    expect(listed.map((agent) => agent.id)).toEqual([supervised.id])
    for (const path of [`/api/v1/agents/${other.id}`, `/api/v1/agents/${other.id}/budget`, `/api/v1/agents/${other.id}/autonomy/state`]) {
      const response = await self().get(path)
      expect(response.status).toBe(404)
      expect(response.body.error).toBe(`agent ${other.id} not found`)
    }
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).wallets.list({}))
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).transactions.listByWallet({ params: { walletId: supervised.walletId } }))
  })

  it("executes as its agent, waits at the gate (supervised), and cannot approve its own transaction", async () => {
    const executed = await makeClient(service.baseUrl, AGENT_KEY).agents.execute({ params: { agentId: supervised.id }, body: transfer(1_000) })
    expect(executed.status).toBe(202) // supervised: the create waits and answers at the approval gate
    const settled = await waitSettled(service.baseUrl, executed.body.data.id, 30_000, AGENT_KEY)
    expect(settled.body.data).toMatchObject({ status: "approval_gate", agentId: supervised.id })
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).transactions.approve({ params: { txId: executed.body.data.id }, body: {} }))
    expectOperatorRequired(await makeClient(service.baseUrl, AGENT_KEY).transactions.reject({ params: { txId: executed.body.data.id }, body: {} }))
    expect((await makeClient(service.baseUrl).transactions.get({ params: { txId: executed.body.data.id } })).body.data.status).toBe("approval_gate")
    const otherExecute = await makeClient(service.baseUrl, AGENT_KEY).agents.execute({ params: { agentId: other.id }, body: transfer(1_000) })
    expect(otherExecute.status).toBe(404)
  })

  it("spends through POST /transactions only from its own wallet, as its agent, under its checks", async () => {
    const own = await makeClient(service.baseUrl, AGENT_KEY).transactions.create({ body: { walletId: supervised.walletId, ...transfer(2_000) } })
    expect(own.status).toBe(202) // supervised: the create waits and answers at the approval gate
    expect(own.body.data.agentId).toBe(supervised.id)
    const settled = await waitSettled(service.baseUrl, own.body.data.id, 30_000, AGENT_KEY)
    expect(settled.body.data.status).toBe("approval_gate")
    const overBudget = await makeClient(service.baseUrl, AGENT_KEY).transactions.create({ body: { walletId: supervised.walletId, ...transfer(5_000_000) } })
    expect(overBudget.status).toBe(403)
    expect(overBudget.body).toMatchObject({ errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(overBudget.body.error).toMatch(/remaining .*required/i)
    for (const body of [
      { walletId: other.walletId, ...transfer(1_000) },
      { walletId: plainWallet, ...transfer(1_000) },
      { walletId: supervised.walletId, agentId: other.id, ...transfer(1_000) }
    ]) {
      const refused = await makeClient(service.baseUrl, AGENT_KEY).transactions.create({ body })
      expect(refused.status).toBe(403)
      expect(refused.body.error).toContain(`acts as agent ${supervised.id}`)
    }
    // Another agent's transaction is invisible to this key.
    const others = await makeClient(service.baseUrl).transactions.create({ query: { waitMs: "0" }, body: { walletId: other.walletId, ...transfer(1_000) } })
    expect(others.status).toBe(201)
    expect((await makeClient(service.baseUrl, AGENT_KEY).transactions.get({ params: { txId: others.body.data.id } })).status).toBe(404)
  })
})

describe("every spend from an agent's wallet applies the agent's checks", () => {
  it("applies supervised mode and the budget to an operator's POST /transactions on the agent's wallet, agentId or not", async () => {
    const recorded = async () =>
      (await makeClient(service.baseUrl).transactions.listByWallet({ params: { walletId: supervised.walletId }, query: { limit: 100 } })).body.data.transactions.map((t) => t.id)
    const before = await recorded()
    const made: Array<string> = []
    for (const body of [{ walletId: supervised.walletId }, { walletId: supervised.walletId, agentId: supervised.id }]) {
      const created = await makeClient(service.baseUrl).transactions.create({ body: { ...body, ...transfer(3_000) } })
      expect(created.status).toBe(202) // supervised: the create waits and answers at the approval gate
      expect(created.body.data.agentId).toBe(supervised.id)
      expect((await waitSettled(service.baseUrl, created.body.data.id)).body.data.status).toBe("approval_gate")
      made.push(created.body.data.id)
    }
    const overBudget = await makeClient(service.baseUrl).transactions.create({ body: { walletId: supervised.walletId, ...transfer(2_000_000) } })
    expect(overBudget.status).toBe(403)
    expect(overBudget.body.errorCode).toBe("POLICY_VIOLATION")
    expect(overBudget.body.error).toMatch(/remaining .*required/i)
    // The wallet holds exactly the two agent transactions: nothing was written as a plain spend first, nor for the refusal.
    expect((await recorded()).sort()).toEqual([...before, ...made].sort())
  })

  it("applies the allowlists", async () => {
    const refused = await makeClient(service.baseUrl).transactions.create({ body: { walletId: queryOnly.walletId, ...transfer(1_000) } })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.body.error).toContain("not in the allowedIntents")
    // The escrow helpers spend from the wallet they name: the same checks.
    const escrow = await makeClient(service.baseUrl).escrow.refund({ params: { id: "1" }, body: { walletId: queryOnly.walletId, creator: destination } })
    expect(escrow.status).toBe(403)
    expect(escrow.body).toMatchObject({ errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(escrow.body.error).toContain("'refund_escrow' is not in the allowedIntents")
    const allowed = await makeClient(service.baseUrl).transactions.create({ body: { walletId: queryOnly.walletId, type: "query_balance", protocol: "system-program", intent: {} } })
    expect(allowed.status).toBe(201)
    expect(allowed.body.data.agentId).toBe(queryOnly.id)
  })

  it("refuses an agentId that is not the wallet's agent, naming the field", async () => {
    for (const walletId of [plainWallet, other.walletId]) {
      const refused = await makeClient(service.baseUrl).transactions.create({ body: { walletId, agentId: supervised.id, ...transfer(1_000) } })
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ errorCode: "VALIDATION_ERROR", failedAt: "validation" })
      expect(refused.body.error).toMatch(/^agentId: /)
    }
    const unknown = await makeClient(service.baseUrl).transactions.create({ body: { walletId: plainWallet, agentId: "00000000-0000-4000-8000-00000000abcd", ...transfer(1_000) } })
    expect(unknown.status).toBe(404)
  })
})

describe("treasury intents need the treasury scope and an operator credential", () => {
  const allocate = (targetAgentId: string, walletId: string) => ({
    walletId, type: "treasury_allocate", protocol: "system-program", intent: { targetAgentId, lamports: 5_000_000_000 }
  }) as const

  it("refuses an agent funding its own budget, through POST /transactions or execute", async () => {
    const viaTransactions = await makeClient(service.baseUrl, AGENT_KEY).transactions.create({ body: allocate(supervised.id, supervised.walletId) })
    expectOperatorRequired(viaTransactions)
    const viaExecute = await makeClient(service.baseUrl, AGENT_KEY).agents.execute({ params: { agentId: supervised.id }, body: { type: "treasury_allocate", protocol: "system-program", intent: { targetAgentId: supervised.id, lamports: 5_000_000_000 } } })
    expectOperatorRequired(viaExecute)
    expect((await makeClient(service.baseUrl).agents.budget({ params: { agentId: supervised.id } })).body.data.budgetLamports).toBe(1_000_000)
  })

  it("refuses an operator key without the treasury scope, naming it; admits one with it", async () => {
    const refused = await as(NO_TREASURY_KEY).post("/api/v1/transactions", allocate(other.id, plainWallet))
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ errorCode: "VALIDATION_ERROR", failedAt: "gateway" })
    expect(refused.body.error).toContain("'treasury'")
    expect((await makeClient(service.baseUrl).agents.budget({ params: { agentId: other.id } })).body.data.budgetLamports).toBe(1_000_000)
    const allowed = await makeClient(service.baseUrl).transactions.create({ body: allocate(other.id, plainWallet) })
    expect(allowed.status).toBe(201)
    expect((await waitSettled(service.baseUrl, allowed.body.data.id)).body.data.status).toBe("confirmed")
    expect((await makeClient(service.baseUrl).agents.budget({ params: { agentId: other.id } })).body.data.budgetLamports).toBe(5_001_000_000)
  })
})
