/**
 * The kill switch (issue 34 item 3) through the pipeline on the local ledger: a freeze of a wallet fails its
 * transactions waiting at the gate and refuses new ones naming the freeze while the tenant's other wallets go
 * on; a freeze of an agent pauses it; the audit log and a webhook carry the freeze; lifting it is an operator
 * act after which transfers confirm again; bad input changes nothing; and a freeze of a tenant issued while
 * 100 transfers are in flight lets none be signed after it committed.
 */
import { SqlClient } from "@effect/sql"
import { Keypair } from "@solana/web3.js"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dataOf, makeClient } from "../support/client.js"
import { freezeUnderLoad } from "../support/freezeUnderLoad.js"
import { startTestLedger } from "../support/ledger.js"
import { ADMIN_KEY, api, type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitSettled, waitTerminal } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"
import { startWebhookReceiver, type WebhookReceiver } from "../webhooks/webhookReceiver.js"

const OPS = { "x-api-key": "ops-key" }
const OTHER = { "x-api-key": "other-key" }
const LOAD = { "x-api-key": "load-key" }

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  ledger = await startTestLedger()
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    env: {
      API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;ops-key:acme:all;other-key:globex:all;load-key:loadco:all`,
      WEBHOOK_BACKOFF_MS: "50",
      WEBHOOK_SECRET_KEY: "webhook-sealing-key-of-the-freeze-test"
    }
  })
}, 120_000)

afterAll(async () => {
  await service?.stop()
  await ledger?.close()
  await receiver?.close()
})

const transfer = (walletId: string, lamports: number) =>
  submit(service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports } }, OPS, "?waitMs=10000")

const query = (text: string, values: Array<unknown>) =>
  service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe<Record<string, unknown>>(text, values)))

describe("the kill switch", () => {
  it("freezes a wallet: gate-waiting transactions fail, new requests are refused naming the freeze, the tenant's other wallets go on; lifting restores it", async () => {
    const client = makeClient(service.baseUrl, OPS)
    const hook = dataOf(await client.webhooks.create({ body: { url: receiver.url, eventTypes: ["freeze.applied", "freeze.lifted"] } }))
    receiver.setSecrets([hook.secret])
    const wallet = await createWallet(service.baseUrl, 1_000_000_000, OPS)
    const neighbour = await createWallet(service.baseUrl, 1_000_000_000, OPS)
    expect((await client.policies.create({ body: { walletId: wallet.id, name: "gate", rules: [{ type: "spending_limit", maxLamportsPerDay: 500_000_000, requireApprovalAboveLamports: 5_000_000 }] } })).status).toBe(201)
    const waiting = await transfer(wallet.id, 10_000_000)
    expect(waiting.status).toBe(202)
    const waitingId = waiting.data?.id ?? ""

    const frozen = await client.risk.freeze({ body: { scope: "wallet", targetId: wallet.id, reason: "key suspected leaked" } })
    expect(frozen.status).toBe(201)
    const freeze = dataOf(frozen)
    expect(freeze).toMatchObject({ tenantId: "acme", scope: "wallet", targetId: wallet.id, active: true, reason: "key suspected leaked", unfrozenAt: null })
    expect(freeze.effects?.failedAtGate).toEqual([waitingId])

    // The transaction at the gate failed naming the freeze; its reserved spend is back (nothing counted for the day).
    const failed = await waitTerminal(service.baseUrl, waitingId, OPS)
    expect(failed.data).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy", approval: { status: "rejected" } })
    expect(failed.data.error).toContain(`freeze ${freeze.id}`)
    const spent = await query("SELECT COALESCE(sum(spent_lamports), 0)::text AS spent FROM policy_daily_spend WHERE wallet_id = $1", [wallet.id])
    expect(spent[0]?.spent).toBe("0")
    // Approving it now is refused: it is no longer waiting.
    expect((await client.transactions.approve({ params: { txId: waitingId } })).body).toMatchObject({ errorCode: "VALIDATION_ERROR" })

    // New requests of the wallet are refused with the envelope naming the freeze; nothing is created.
    const refused = await transfer(wallet.id, 1_000_000)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.body.error).toContain(`wallet ${wallet.id} is frozen (freeze ${freeze.id}`)
    expect(dataOf(await client.transactions.listByWallet({ params: { walletId: wallet.id } })).total).toBe(1)
    // Freezing it again answers the same freeze.
    const again = await client.risk.freeze({ body: { scope: "wallet", targetId: wallet.id, reason: "twice" } })
    expect(again.status).toBe(200)
    expect(dataOf(again).id).toBe(freeze.id)
    // The tenant's other wallet is not frozen.
    expect((await transfer(neighbour.id, 1_000_000)).data?.status).toBe("confirmed")

    // Shown: the freeze list, the audit log, a signed webhook.
    expect(dataOf(await client.risk.listFreezes({ query: {} })).freezes.map((listed) => listed.id)).toContain(freeze.id)
    const audit = dataOf(await client.audit.list({ query: { eventType: "freeze.applied" } }))
    expect(audit.events.some((event) => event.metadata?.freezeId === freeze.id)).toBe(true)
    await waitFor("the freeze webhook", () => receiver.accepted().some((attempt) => attempt.payload?.type === "freeze.applied"))

    // Lifting is an operator act; the wallet transfers again.
    const lifted = await client.risk.liftFreeze({ params: { freezeId: freeze.id }, body: { reason: "key rotated" } })
    expect(lifted.status).toBe(200)
    expect(dataOf(lifted)).toMatchObject({ active: false, unfreezeReason: "key rotated", unfrozenBy: freeze.frozenBy })
    expect((await transfer(wallet.id, 1_000_000)).data?.status).toBe("confirmed")
    await waitFor("the lift webhook", () => receiver.accepted().some((attempt) => attempt.payload?.type === "freeze.lifted"))
    expect(dataOf(await client.risk.listFreezes({ query: {} })).freezes.map((listed) => listed.id)).not.toContain(freeze.id)
    expect(dataOf(await client.risk.listFreezes({ query: { state: "all" } })).freezes.map((listed) => listed.id)).toContain(freeze.id)
  }, 120_000)

  it("freezes an agent: the running agent pauses and its spends are refused", async () => {
    const client = makeClient(service.baseUrl, OPS)
    const wallet = await createWallet(service.baseUrl, 1_000_000_000, OPS)
    const agent = dataOf(await client.agents.create({ body: { name: "trader", walletId: wallet.id, budgetLamports: 100_000_000 } }))
    expect(dataOf(await client.agents.start({ params: { agentId: agent.id }, body: {} })).status).toBe("running")
    const freeze = dataOf(await client.risk.freeze({ body: { scope: "agent", targetId: agent.id, reason: "misbehaving" } }))
    expect(freeze.effects?.pausedAgents).toEqual([agent.id])
    expect(dataOf(await client.agents.get({ params: { agentId: agent.id } })).status).toBe("paused")
    const spend = () =>
      submit(service.baseUrl, { walletId: wallet.id, agentId: agent.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 } }, OPS)
    // Paused by the freeze (the pause names it) ...
    const paused = await spend()
    expect(paused.status).toBe(403)
    expect(paused.body.error).toContain(`paused (frozen by operator (freeze ${freeze.id})`)
    // ... and resuming it does not lift the freeze: its spends are refused naming the freeze.
    expect(dataOf(await client.agents.resume({ params: { agentId: agent.id }, body: {} })).status).toBe("running")
    const refused = await spend()
    expect(refused.status).toBe(403)
    expect(refused.body.error).toContain(`agent ${agent.id} is frozen (freeze ${freeze.id}`)
  }, 60_000)

  it("is an MCP tool too: freeze, list and lift through /mcp/call with the operator's key", async () => {
    const wallet = await createWallet(service.baseUrl, undefined, OPS)
    const tool = <D>(name: string, args: unknown) => api<D>(service.baseUrl, "POST", "/mcp/call", { tool: name, args }, OPS)
    const frozen = await tool<{ id: string; active: boolean }>("risk.freeze", { scope: "wallet", targetId: wallet.id, reason: "via a tool" })
    expect(frozen.status).toBe(200)
    expect(frozen.body.data.active).toBe(true)
    const listed = await tool<{ freezes: Array<{ id: string }> }>("risk.list_freezes", {})
    expect(listed.body.data.freezes.map((freeze) => freeze.id)).toContain(frozen.body.data.id)
    const lifted = await tool<{ active: boolean }>("risk.lift_freeze", { freezeId: frozen.body.data.id, reason: "done" })
    expect(lifted.status).toBe(200)
    expect(lifted.body.data.active).toBe(false)
    // The tool validates like the route: an unknown scope is a 400 naming it.
    const bad = await tool("risk.freeze", { scope: "galaxy", reason: "x" })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("scope")
  }, 60_000)

  it("refuses bad input with a 400 or 404 naming the field, and changes nothing", async () => {
    const client = makeClient(service.baseUrl, OPS)
    const before = dataOf(await client.risk.listFreezes({ query: { state: "all" } })).total
    const cases: Array<[unknown, number, string]> = [
      [{ scope: "galaxy", reason: "x" }, 400, "scope"],
      [{ scope: "wallet", reason: "x" }, 400, "targetId"],
      [{ scope: "wallet", targetId: "not-a-uuid", reason: "x" }, 400, "targetId"],
      [{ scope: "wallet", targetId: "00000000-0000-4000-8000-000000000000", reason: "x" }, 404, "wallet"],
      [{ scope: "agent", targetId: "00000000-0000-4000-8000-000000000000", reason: "x" }, 404, "agent"],
      [{ scope: "tenant", targetId: "globex", reason: "x" }, 404, "tenant"],
      [{ scope: "tenant", reason: "" }, 400, "reason"],
      [{ scope: "tenant", reason: "x", freezeAll: true }, 400, "freezeAll"]
    ]
    for (const [body, status, named] of cases) {
      const answer = await api(service.baseUrl, "POST", "/api/v1/risk/freezes", body, OPS)
      expect(answer.status, JSON.stringify(body)).toBe(status)
      expect(answer.body.error).toContain(named)
    }
    // Another tenant's wallet is not found; a deployment-wide key must name an existing tenant.
    const theirs = await createWallet(service.baseUrl, undefined, OTHER)
    expect((await client.risk.freeze({ body: { scope: "wallet", targetId: theirs.id, reason: "x" } })).status).toBe(404)
    expect((await makeClient(service.baseUrl).risk.freeze({ body: { scope: "tenant", targetId: "no-such-tenant", reason: "x" } })).status).toBe(404)
    expect((await makeClient(service.baseUrl).risk.freeze({ body: { scope: "tenant", reason: "x" } })).status).toBe(400)
    expect((await client.risk.liftFreeze({ params: { freezeId: "00000000-0000-4000-8000-000000000000" }, body: {} })).status).toBe(404)
    expect(dataOf(await client.risk.listFreezes({ query: { state: "all" } })).total).toBe(before)
  }, 60_000)

  it("a tenant frozen while 100 transfers are in flight: none is signed after the freeze commits", async () => {
    const outcome = await freezeUnderLoad({ baseUrl: service.baseUrl, rpcUrl: ledger.rpcUrl, headers: LOAD, query, scope: "tenant" })
    expect(outcome.freeze).toMatchObject({ scope: "tenant", targetId: "loadco" })
    // Settled: the tenant's requests are refused while it is frozen.
    const refused = await submit(service.baseUrl, { walletId: outcome.wallets[0].id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1 } }, LOAD)
    expect(refused.status).toBe(403)
    const settled = await waitSettled(service.baseUrl, (await transfer((await createWallet(service.baseUrl, 100_000_000, OPS)).id, 1_000_000)).data?.id ?? "", 30_000, OPS)
    expect(settled.data.status).toBe("confirmed")
  }, 240_000)
})
