/**
 * Agents over HTTP against the real service and ledger: create with the spec's defaults and a new
 * wallet, the state table (a refused transition names the current state), capabilities, execute
 * through the pipeline with allowlists and the budget (the breach message names remaining and
 * required lamports), budget bookkeeping and the audit events.
 */
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY, api } from "../support/service.js"
import { createWallet, waitSettled } from "../support/transactions.js"

const DESTINATION = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)


const events = async (agentId: string, eventType: string) =>
  (await client().audit.list({ query: { agentId, eventType } })).body.data.events

describe("agents", () => {
  it("creates an agent with the spec's defaults and a wallet of its own, stopped", async () => {
    const created = await client().agents.create({ body: { name: "alpha" } })
    expect(created.status).toBe(201)
    const agent = created.body.data
    expect(agent).toMatchObject({
      name: "alpha",
      status: "stopped",
      executionMode: "autonomous",
      allowedIntents: ["transfer_sol", "transfer_spl", "query_balance"]
    })
    expect((await client().wallets.get({ params: { walletId: agent.walletId } })).status).toBe(200)
    expect((await client().agents.get({ params: { agentId: agent.id } })).body.data).toEqual(agent)
    const listed = (await client().agents.list({})).body.data.agents
    expect(listed.map((a) => a.id)).toContain(agent.id)
    expect(await events(agent.id, "agent.created")).toHaveLength(1)
  })

  it("answers a create sent again with its idempotencyKey (the first answer lost) with the one agent and its one wallet", async () => {
    const count = async () => ({
      agents: (await client().agents.list({ query: { limit: "1" } })).body.data.total,
      wallets: (await client().wallets.list({ query: { limit: "1" } })).body.data.total
    })
    const before = await count()
    const body = { name: "keyed", budgetLamports: 5_000, idempotencyKey: `agent-${Date.now()}` }
    // The first create is served; its answer is read by no one (a dropped connection, a timed-out client).
    const lost = await fetch(`${env.service.baseUrl}/api/v1/agents`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": ADMIN_KEY }, body: JSON.stringify(body) })
    expect(lost.status).toBe(201)
    await lost.body?.cancel()
    const repeated = await client().agents.create({ body })
    expect(repeated.status).toBe(200)
    expect(repeated.body.data).toMatchObject({ name: "keyed", budgetLamports: 5_000, status: "stopped" })
    expect(await count()).toEqual({ agents: before.agents + 1, wallets: before.wallets + 1 })
    expect(await events(repeated.body.data.id, "agent.created")).toHaveLength(1)

    const other = await client().agents.create({ body: { ...body, budgetLamports: 6_000 } })
    expect(other.status).toBe(400)
    expect(other.body.error?.startsWith("idempotencyKey:"), other.body.error).toBe(true)

    // creates racing with one key make one agent and one wallet
    const raceKey = `agent-race-${Date.now()}`
    const raced = await Promise.all(Array.from({ length: 5 }, () => client().agents.create({ body: { name: "raced", idempotencyKey: raceKey } })))
    expect(raced.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 201])
    expect(new Set(raced.map((answer) => answer.body.data.id)).size).toBe(1)
    expect(await count()).toEqual({ agents: before.agents + 2, wallets: before.wallets + 2 })

    // a create that issued the agent's key cannot show its secret again: 409 saying how to get a new one
    const withKey = { name: "keyed with key", apiKey: {}, idempotencyKey: `agent-key-${Date.now()}` }
    const first = await client().agents.create({ body: withKey })
    expect(first.status).toBe(201)
    const again = await client().agents.create({ body: withKey })
    expect(again.status).toBe(409)
    expect(again.body.error).toContain(`agent ${first.body.data.id} was made by this create`)
    expect(again.body.error).toContain("rotate")
    expect(await count()).toEqual({ agents: before.agents + 3, wallets: before.wallets + 3 })
  })

  it("refuses a bad body naming the field, and an unknown agent with 404", async () => {
    const bad = await client().agents.create({ body: { name: "" } })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/^name:/)
    expect((await client().agents.get({ params: { agentId: "00000000-0000-4000-8000-000000000000" } })).status).toBe(404)
  })

  it("follows the state table; an invalid transition is a 400 naming the current state", async () => {
    const agent = (await client().agents.create({ body: { name: "states" } })).body.data
    const stop = await client().agents.stop({ params: { agentId: agent.id }, body: {} })
    expect(stop.status).toBe(400)
    expect(stop.body.errorCode).toBe("VALIDATION_ERROR")
    expect(stop.body.error).toContain("stopped")
    expect((await client().agents.start({ params: { agentId: agent.id }, body: {} })).body.data.status).toBe("running")
    expect((await client().agents.resume({ params: { agentId: agent.id }, body: {} })).body.error).toContain("running")
    const paused = await client().agents.pause({ params: { agentId: agent.id }, body: { reason: "maintenance" } })
    expect(paused.body.data).toMatchObject({ status: "paused", pausedReason: "maintenance" })
    expect((await client().agents.start({ params: { agentId: agent.id }, body: {} })).body.error).toContain("paused")
    expect((await client().agents.resume({ params: { agentId: agent.id }, body: {} })).body.data.status).toBe("running")
    expect((await client().agents.stop({ params: { agentId: agent.id }, body: {} })).body.data.status).toBe("stopped")
    for (const type of ["agent.started", "agent.paused", "agent.stopped"]) expect(await events(agent.id, type)).not.toHaveLength(0)
  })

  it("updates capabilities", async () => {
    const agent = (await client().agents.create({ body: { name: "caps" } })).body.data
    const updated = await client().agents.updateCapabilities({ params: { agentId: agent.id }, body: {
      allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"], budgetLamports: 5000, executionMode: "supervised"
    } })
    expect(updated.status).toBe(200)
    expect(updated.body.data).toMatchObject({ allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"], budgetLamports: 5000, executionMode: "supervised" })
    const missing = await api(env.service.baseUrl, "PUT", `/api/v1/agents/${agent.id}/capabilities`, {})
    expect(missing.status).toBe(400)
    expect(missing.body.error).toMatch(/^allowedIntents/)
  })

  it("executes through the pipeline within its budget and refuses a breach naming remaining and required lamports", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const agent = (await client().agents.create({ body: { name: "spender", walletId: wallet.id, budgetLamports: 2_000_000 } })).body.data
    const first = await client().agents.execute({ params: { agentId: agent.id }, body: { type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 1_200_000 } } })
    expect(first.status).toBe(201)
    expect(first.body.data).toMatchObject({ agentId: agent.id, walletId: wallet.id, type: "transfer_sol" })
    const settled = await waitSettled(env.service.baseUrl, first.body.data.id)
    expect(settled.body.data.error ?? null).toBeNull()
    expect(settled.body.data.status).toBe("confirmed")

    const budget = (await client().agents.budget({ params: { agentId: agent.id } })).body.data
    expect(budget).toMatchObject({ agentId: agent.id, walletId: wallet.id, budgetLamports: 2_000_000, spentLamportsToday: 1_200_000 })

    const breach = await client().agents.execute({ params: { agentId: agent.id }, body: { type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 1_000_000 } } })
    expect(breach.status).toBe(403)
    expect(breach.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(breach.body.error).toBe("agent budget exceeded: remaining 800000 lamports, required 1000000 lamports")
    expect(await events(agent.id, "agent.budget.exceeded")).toHaveLength(1)
    expect((await client().agents.budget({ params: { agentId: agent.id } })).body.data.spentLamportsToday).toBe(1_200_000)

    // An idempotent repeat answers the first transaction and spends nothing more.
    const keyed = { type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 500_000 }, idempotencyKey: "agent-repeat-1" } as const
    const once = await client().agents.execute({ params: { agentId: agent.id }, body: keyed })
    expect(once.status).toBe(201)
    const again = await client().agents.execute({ params: { agentId: agent.id }, body: keyed })
    expect(again.status).toBe(200)
    expect(again.body.data.id).toBe(once.body.data.id)
    expect((await client().agents.budget({ params: { agentId: agent.id } })).body.data.spentLamportsToday).toBe(1_700_000)
  })

  it("refuses an intent or protocol outside the agent's allowlists with 403", async () => {
    const agent = (await client().agents.create({ body: { name: "narrow", allowedIntents: ["query_balance"], allowedProtocols: ["system-program"] } })).body.data
    const swap = await client().agents.execute({ params: { agentId: agent.id }, body: { type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 1 } } })
    expect(swap.status).toBe(403)
    expect(swap.body.error).toContain("allowedIntents")
    const protocol = await client().agents.execute({ params: { agentId: agent.id }, body: { type: "query_balance", protocol: "spl-token", intent: {} } })
    expect(protocol.status).toBe(403)
    expect(protocol.body.error).toContain("allowedProtocols")
    const read = await client().agents.execute({ params: { agentId: agent.id }, body: { type: "query_balance", protocol: "system-program" } })
    expect(read.status).toBe(201)
  })

  it("keeps agents within their tenant", async () => {
    const asTenant = (tenant: string) => ({ "x-api-key": "test-admin-key", "x-tenant-id": tenant })
    const agent = (await makeClient(env.service.baseUrl, asTenant("tenant-a")).agents.create({ body: { name: "tenant-a" } })).body.data
    expect((await makeClient(env.service.baseUrl, asTenant("tenant-a")).agents.get({ params: { agentId: agent.id } })).status).toBe(200)
    expect((await makeClient(env.service.baseUrl, asTenant("tenant-b")).agents.get({ params: { agentId: agent.id } })).status).toBe(404)
    expect((await makeClient(env.service.baseUrl, asTenant("tenant-b")).agents.start({ params: { agentId: agent.id }, body: {} })).status).toBe(404)
    const listed = (await makeClient(env.service.baseUrl, asTenant("tenant-b")).agents.list({})).body.data.agents
    expect(listed.map((a) => a.id)).not.toContain(agent.id)
  })

  it("refuses to execute while paused: 403 POLICY_VIOLATION naming the state", async () => {
    const agent = (await client().agents.create({ body: { name: "paused" } })).body.data
    await client().agents.start({ params: { agentId: agent.id }, body: {} })
    await client().agents.pause({ params: { agentId: agent.id }, body: {} })
    const refused = await client().agents.execute({ params: { agentId: agent.id }, body: { type: "query_balance", protocol: "system-program" } })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.body.error).toContain("paused")
  })
})
