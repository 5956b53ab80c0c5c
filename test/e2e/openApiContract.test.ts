/**
 * The contract against a real run: the service serves its OpenAPI document without a key, the document
 * passes an independent OpenAPI 3.1 validator, and every answer of a real session (wallets, a transfer
 * to the ledger, the approval gate, proof and replay, policies, agents, audit, health, and the failure
 * envelopes) matches it. `api()` checks each answer against the document (test/support/contract.ts) and
 * throws on a mismatch, so this file, like every test that calls `api()`, fails when code and document drift.
 */
import { Validator } from "@seriousme/openapi-schema-validator"
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { contractOf, OPENAPI_PATH, type OpenApiDocument } from "../support/contract.js"
import { useServiceWithLedger } from "../support/harness.js"
import { api } from "../support/service.js"
import { createWallet } from "../support/transactions.js"

const env = useServiceWithLedger()

/** Every (method, path) this file calls, to show the document has a declared operation for each. */
const called: Array<readonly [string, string]> = []
/** Records the call's method and path, and answers the (typed) call itself. */
const recorded = <A>(method: string, path: string, answer: Promise<A>): Promise<A> => {
  called.push([method, path])
  return answer
}

describe("the OpenAPI contract of a running service", () => {
  it("serves the document without a key, and it is valid OpenAPI 3.1", async () => {
    const response = await fetch(env.service.baseUrl + OPENAPI_PATH)
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toMatch(/application\/json/)
    const document = (await response.json()) as OpenApiDocument
    expect(document.openapi).toBe("3.1.0")
    const result = await new Validator().validate(document as never)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
  })

  it("describes every answer of a session: wallets, a transfer, the approval gate, proof and replay", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    expect((await recorded("GET", `/api/v1/wallets/${wallet.id}`, makeClient(env.service.baseUrl).wallets.get({ params: { walletId: wallet.id } }))).status).toBe(200)
    expect((await recorded("GET", "/api/v1/wallets?limit=5", makeClient(env.service.baseUrl).wallets.list({ query: { limit: "5" } }))).status).toBe(200)
    expect((await recorded("GET", `/api/v1/wallets/${wallet.id}/balance`, makeClient(env.service.baseUrl).wallets.balance({ params: { walletId: wallet.id } }))).body.data.lamports).toBe(2_000_000_000)
    expect((await recorded("GET", `/api/v1/wallets/${wallet.id}/tokens`, makeClient(env.service.baseUrl).wallets.tokens({ params: { walletId: wallet.id } }))).status).toBe(200)

    const transfer = await recorded("POST", "/api/v1/transactions?waitMs=20000", makeClient(env.service.baseUrl).transactions.create({ query: { waitMs: "20000" }, body: {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_000_000 }
    } }))
    expect(transfer.status).toBe(201)
    expect(transfer.body.data.status).toBe("confirmed")
    const txId = transfer.body.data.id
    expect((await recorded("GET", `/api/v1/transactions/${txId}`, makeClient(env.service.baseUrl).transactions.get({ params: { txId } }))).body.data.status).toBe("confirmed")
    expect((await recorded("GET", `/api/v1/transactions/${txId}/proof`, makeClient(env.service.baseUrl).transactions.proof({ params: { txId } }))).body.data.txId).toBe(txId)
    expect((await recorded("GET", `/api/v1/transactions/${txId}/replay`, makeClient(env.service.baseUrl).transactions.replay({ params: { txId } }))).body.data.txId).toBe(txId)
    expect((await recorded("GET", `/api/v1/wallets/${wallet.id}/transactions?limit=10`, makeClient(env.service.baseUrl).transactions.listByWallet({ params: { walletId: wallet.id }, query: { limit: "10" } }))).body.data.transactions).toHaveLength(1)

    const gated = await recorded("POST", "/api/v1/transactions?waitMs=20000", makeClient(env.service.baseUrl).transactions.create({ query: { waitMs: "20000" }, body: {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports: 2_000_000 }
    } }))
    expect(gated.status).toBe(202)
    expect((await recorded("GET", `/api/v1/wallets/${wallet.id}/pending-approvals`, makeClient(env.service.baseUrl).transactions.pendingApprovals({ params: { walletId: wallet.id } }))).body.data.transactions).toHaveLength(1)
    expect((await recorded("POST", `/api/v1/transactions/${gated.body.data.id}/approve`, makeClient(env.service.baseUrl).transactions.approve({ params: { txId: gated.body.data.id } }))).status).toBe(200)

    const rejected = await recorded("POST", "/api/v1/transactions?waitMs=20000", makeClient(env.service.baseUrl).transactions.create({ query: { waitMs: "20000" }, body: {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports: 3_000_000 }
    } }))
    const refusal = await recorded("POST", `/api/v1/transactions/${rejected.body.data.id}/reject`, makeClient(env.service.baseUrl).transactions.reject({ params: { txId: rejected.body.data.id }, body: { reason: "not today" } }))
    expect(refusal.body.data.status).toBe("failed")
  }, 120_000)

  it("describes policies, a policy denial's failure envelope, agents, audit, metrics and health", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const policy = await recorded("POST", "/api/v1/policies", makeClient(env.service.baseUrl).policies.create({ body: { walletId: wallet.id, name: "limits", rules: [{ type: "spending_limit", maxLamportsPerTx: 5_000_000 }] } }))
    expect(policy.status).toBe(201)
    const policyId = policy.body.data.id
    expect((await recorded("GET", `/api/v1/policies/${policyId}`, makeClient(env.service.baseUrl).policies.get({ params: { policyId } }))).status).toBe(200)
    expect((await recorded("PUT", `/api/v1/policies/${policyId}`, makeClient(env.service.baseUrl).policies.update({ params: { policyId }, body: { rules: [{ type: "spending_limit", maxLamportsPerTx: 4_000_000 }] } }))).body.data.version).toBe(2)
    expect((await recorded("GET", `/api/v1/policies/${policyId}/versions`, makeClient(env.service.baseUrl).policies.versions({ params: { policyId } }))).body.data.versions).toHaveLength(2)
    expect((await recorded("GET", `/api/v1/policies/${policyId}/versions/1`, makeClient(env.service.baseUrl).policies.version({ params: { policyId, version: "1" } }))).body.data.version).toBe(1)
    expect((await recorded("POST", `/api/v1/policies/${policyId}/migrate`, makeClient(env.service.baseUrl).policies.migrate({ params: { policyId }, body: { targetVersion: 1, mode: "dry_run" } }))).status).toBe(200)
    expect((await recorded("GET", `/api/v1/wallets/${wallet.id}/policies`, makeClient(env.service.baseUrl).policies.listByWallet({ params: { walletId: wallet.id } }))).body.data.policies).toHaveLength(1)
    expect((await recorded("POST", "/api/v1/policies/compatibility-check", makeClient(env.service.baseUrl).policies.compatibilityCheck({ body: { rules: [{ type: "spending_limit", maxLamportsPerTx: 1 }] } }))).status).toBe(200)
    const evaluated = await recorded("POST", "/api/v1/evaluate", makeClient(env.service.baseUrl).policies.evaluate({ body: { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", amountLamports: 9_000_000 } }))
    expect(evaluated.body.data.decision).toBe("deny")

    const denied = await recorded("POST", "/api/v1/transactions?waitMs=20000", makeClient(env.service.baseUrl).transactions.create({ query: { waitMs: "20000" }, body: {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 9_000_000 }
    } }))
    expect(denied.status).toBe(403)
    expect(denied.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", data: { status: "failed" } })

    const agent = await recorded("POST", "/api/v1/agents", makeClient(env.service.baseUrl).agents.create({ body: { name: "contract", budgetLamports: 50_000_000 } }))
    expect(agent.status).toBe(201)
    const agentId = agent.body.data.id
    expect((await recorded("GET", "/api/v1/agents", makeClient(env.service.baseUrl).agents.list({}))).status).toBe(200)
    expect((await recorded("GET", `/api/v1/agents/${agentId}`, makeClient(env.service.baseUrl).agents.get({ params: { agentId } }))).status).toBe(200)
    expect((await recorded("GET", `/api/v1/agents/${agentId}/budget`, makeClient(env.service.baseUrl).agents.budget({ params: { agentId } }))).body.data.budgetLamports).toBe(50_000_000)
    expect((await recorded("PUT", `/api/v1/agents/${agentId}/capabilities`, makeClient(env.service.baseUrl).agents.updateCapabilities({ params: { agentId }, body: { allowedIntents: ["transfer_sol", "query_balance"] } }))).status).toBe(200)
    expect((await recorded("POST", `/api/v1/agents/${agentId}/start`, makeClient(env.service.baseUrl).agents.start({ params: { agentId }, body: {} }))).body.data.status).toBe("running")
    expect((await recorded("POST", `/api/v1/agents/${agentId}/pause`, makeClient(env.service.baseUrl).agents.pause({ params: { agentId }, body: { reason: "contract test" } }))).body.data.status).toBe("paused")
    expect((await recorded("POST", `/api/v1/agents/${agentId}/resume`, makeClient(env.service.baseUrl).agents.resume({ params: { agentId }, body: {} }))).body.data.status).toBe("running")
    expect((await recorded("POST", `/api/v1/agents/${agentId}/stop`, makeClient(env.service.baseUrl).agents.stop({ params: { agentId }, body: {} }))).body.data.status).toBe("stopped")

    expect((await recorded("POST", "/api/v1/audit/events", makeClient(env.service.baseUrl).audit.post({ body: { eventType: "contract.check", message: "hello", metadata: { walletId: wallet.id } } }))).status).toBe(201)
    expect((await recorded("GET", `/api/v1/audit/events?walletId=${wallet.id}&limit=5`, makeClient(env.service.baseUrl).audit.list({ query: { walletId: wallet.id, limit: "5" } }))).body.data.events.length).toBeGreaterThan(0)
    expect((await recorded("POST", "/api/v1/metrics/inc", makeClient(env.service.baseUrl).audit.incrementMetric({ body: { name: "contract.checks", value: 2 } }))).body.data).toEqual({ name: "contract.checks", value: 2 })
    expect((await recorded("GET", "/api/v1/metrics", makeClient(env.service.baseUrl).audit.metrics({}))).body.data["contract.checks"]).toBe(2)
    expect((await recorded("GET", "/health", makeClient(env.service.baseUrl).health.health({}))).body.data.status).toBe("ok")
  }, 120_000)

  it("describes the failure envelopes: 400 naming the field, 401 without a key, 404", async () => {
    const bad = await recorded("POST", "/api/v1/wallets", makeClient(env.service.baseUrl).wallets.create({ body: { label: "" } }))
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatch(/label/)
    const unknown = await recorded("GET", "/api/v1/transactions/00000000-0000-4000-8000-000000000000", makeClient(env.service.baseUrl).transactions.get({ params: { txId: "00000000-0000-4000-8000-000000000000" } }))
    expect(unknown.status).toBe(404)
    const anonymous = await makeClient(env.service.baseUrl, {}).wallets.list({})
    expect(anonymous.status).toBe(401)
  })

  it("the typed client sends what the contract declares and decodes the data it answers", async () => {
    const client = makeClient(env.service.baseUrl)
    const wallet = await client.wallets.create({ body: { label: "typed", autoFund: true, fundLamports: 1_000_000_000 } })
    expect(wallet.status).toBe(201)
    expect(wallet.data!.funding).toMatchObject({ ok: true })
    const walletId = wallet.data!.id
    const destination = Keypair.generate().publicKey.toBase58()
    const transfer = await client.transactions.create({
      query: { waitMs: 20_000 },
      body: { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_500_000 } }
    })
    expect(transfer.status).toBe(201)
    const txId = transfer.data!.id
    // Decoded by the contract's schema: amounts are exact bigints.
    expect(transfer.data!.preBalanceLamports).toBe(1_000_000_000n)
    expect((await client.transactions.get({ params: { txId } })).data!.status).toBe("confirmed")
    expect((await client.transactions.proof({ params: { txId } })).data!.txId).toBe(txId)
    expect((await client.transactions.listByWallet({ params: { walletId }, query: { limit: 5 } })).data!.transactions.map((t) => t.id)).toEqual([txId])
    expect((await client.wallets.balance({ params: { walletId } })).data!.lamports).toBeLessThan(1_000_000_000 - 1_500_000 + 1)
    const missing = await client.transactions.get({ params: { txId: "00000000-0000-4000-8000-000000000000" } })
    expect(missing.status).toBe(404)
    expect(missing.data).toBeUndefined()
  }, 120_000)

  it("the typed client's DeFi, escrow, positions, RPC pool and tool groups answer declared, encoded data", async () => {
    const client = makeClient(env.service.baseUrl)
    const wallet = await client.wallets.create({ body: { label: "groups", autoFund: true, fundLamports: 500_000_000 } })
    const walletId = wallet.data!.id
    const positions = await client.positions.list({ params: { walletId } })
    expect(positions.status).toBe(200)
    // The native position: lamports as a decimal string in `amount`, the SOL worth an exact integer.
    const native = positions.data!.positions.find((p) => p.type === "native")!
    expect(native).toMatchObject({ protocol: "system-program", token: "SOL", amount: "500000000", valueLamports: "500000000" })
    expect(positions.body.data!.positions.find((p: { type: string }) => p.type === "native")!.valueLamports).toBe(500_000_000)
    expect((await client.escrow.listByWallet({ params: { walletId } })).data).toEqual([])
    const pool = await client.rpcPool.status({})
    expect(pool.status).toBe(200)
    expect(pool.data!.endpoints.length).toBeGreaterThan(0)
    expect(pool.data!.endpoints[0]!.url).not.toMatch(/api[-_]?key=/i)
    const tools = await client.mcp.tools({})
    expect(tools.data!.map((t) => t.name)).toContain("wallet.create")
    const prices = await client.defi.oraclePrices({})
    expect(prices.status).toBe(200)
    expect(prices.data!.prices.length).toBeGreaterThan(0)
    const pools = await client.defi.pools({})
    expect(pools.status).toBe(200)
    expect(pools.data!.sources.map((source) => source.protocol)).toEqual(expect.arrayContaining(["amm-one", "amm-two"]))
  }, 120_000)

  it("has a declared operation for every call above (so each answer was checked against its own schema)", async () => {
    const checker = await contractOf(env.service.baseUrl)
    const undeclared = called.filter(([method, path]) => checker.operationOf(method, path.split("?")[0]!) === undefined)
    expect(undeclared).toEqual([])
    expect(called.length).toBeGreaterThan(35)
  })
})
