/**
 * AGENT_REQUIRE_MANIFEST=true over HTTP: execute needs a valid manifest (body `manifest` or header
 * x-agent-manifest, base64 JSON); a tampered signature, an expired, a revoked or another agent's
 * manifest, and an intent or protocol outside it are all refused with 403. Also verify's answers,
 * issue's aliases and limits, and AGENT_REQUIRE_BACKTEST_PASS on start.
 */
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import type { Agent, CapabilityManifest, ManifestVerification } from "../../schemas/agent.js"
import type { BacktestRun } from "../../schemas/strategy.js"
import type { TransactionEncoded } from "../../schemas/transaction.js"
import { api } from "../support/service.js"

const env = useServiceWithLedger({
  env: { AGENT_REQUIRE_MANIFEST: "true", AGENT_MANIFEST_SIGNING_SECRET: "test-manifest-secret", AGENT_REQUIRE_BACKTEST_PASS: "true" },
  timeoutMs: 120_000
})

/** Some bodies here carry fields the declared bodies do not name (a manifest, aliases), so calls go through api(), typed by the answer they read. */
const post = <D = unknown>(path: string, body?: unknown, headers: Record<string, string> = {}) =>
  api<D>(env.service.baseUrl, "POST", path, body ?? {}, { "x-api-key": "test-admin-key", ...headers })

const newAgent = async () => (await post<AgentWire>("/api/v1/agents", { name: "manifested" })).body.data
const issue = async (agentId: string, body: Record<string, unknown> = { allowedIntents: ["query_balance"], allowedProtocols: ["system-program"] }) =>
  (await post<ManifestWire>(`/api/v1/agents/${agentId}/manifest/issue`, body)).body.data
type AgentWire = typeof Agent.Encoded
type ManifestWire = typeof CapabilityManifest.Encoded
type BacktestRunWire = typeof BacktestRun.Encoded

const queryBalance = { type: "query_balance", protocol: "system-program" }
const expectRefused = (response: Awaited<ReturnType<typeof post>>, text: string) => {
  expect(response.status).toBe(403)
  expect(response.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
  expect(response.body.error).toContain(text)
}

describe("capability manifests over HTTP", () => {
  it("issues a signed manifest with the spec's fields; aliases and the ttl limit", async () => {
    const agent = await newAgent()
    const issued = await post<ManifestWire>(`/api/v1/agents/${agent.id}/manifest/issue`, { intents: ["query_balance"], protocols: ["system-program"], ttl: 60 })
    expect(issued.status).toBe(201)
    const manifest = issued.body.data
    expect(Object.keys(manifest).sort()).toEqual(
      ["agentId", "allowedIntents", "allowedProtocols", "expiresAt", "issuedAt", "issuer", "nonce", "signature", "version"].sort()
    )
    expect(Date.parse(manifest.expiresAt) - Date.parse(manifest.issuedAt)).toBe(60_000)
    const defaults = await issue(agent.id)
    expect(Date.parse(defaults.expiresAt) - Date.parse(defaults.issuedAt)).toBe(3_600_000)
    const tooLong = await post(`/api/v1/agents/${agent.id}/manifest/issue`, { allowedIntents: ["query_balance"], allowedProtocols: ["system-program"], ttlSeconds: 2_592_001 })
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.error).toMatch(/^ttlSeconds/)
  })

  it("executes with a valid manifest in the body or the header, and refuses without one", async () => {
    const agent = await newAgent()
    const manifest = await issue(agent.id)
    expect((await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest })).status).toBe(201)
    const header = Buffer.from(JSON.stringify(manifest)).toString("base64")
    expect((await post(`/api/v1/agents/${agent.id}/execute`, queryBalance, { "x-agent-manifest": header })).status).toBe(201)
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, queryBalance), "manifest required")
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, queryBalance, { "x-agent-manifest": "not base64 json" }), "malformed")
  })

  it("needs the manifest on POST /transactions from the agent's wallet too (body or header)", async () => {
    const agent = await newAgent()
    const manifest = await issue(agent.id)
    const order = { walletId: agent.walletId, ...queryBalance, intent: {} }
    expectRefused(await post("/api/v1/transactions", order), "manifest required")
    expectRefused(await post("/api/v1/transactions", { ...order, agentId: agent.id }), "manifest required")
    const header = Buffer.from(JSON.stringify(manifest)).toString("base64")
    const viaHeader = await post<TransactionEncoded>("/api/v1/transactions", order, { "x-agent-manifest": header })
    expect(viaHeader.status).toBe(201)
    expect(viaHeader.body.data.agentId).toBe(agent.id)
    expect((await post("/api/v1/transactions", { ...order, manifest })).status).toBe(201)
    const transfer = { walletId: agent.walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", lamports: 1 } }
    expectRefused(await post("/api/v1/transactions", { ...transfer, manifest }), "outside the capability manifest")
  })

  it("refuses a tampered signature, another agent's manifest and an intent or protocol outside it", async () => {
    const agent = await newAgent()
    const other = await newAgent()
    const manifest = await issue(agent.id)
    const signature = manifest.signature as string
    const tampered = { ...manifest, signature: (signature[0] === "0" ? "1" : "0") + signature.slice(1) }
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest: tampered }), "signature is invalid")
    const widened = { ...manifest, allowedIntents: ["query_balance", "transfer_sol"] }
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest: widened }), "signature is invalid")
    const others = await issue(other.id)
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest: others }), "another agent")
    const transfer = { type: "transfer_sol", protocol: "system-program", intent: { destination: agent.walletId, lamports: 1 } }
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, { ...transfer, manifest }), "outside the capability manifest")
    const protocolOutside = await issue(agent.id, { allowedIntents: ["query_balance"], allowedProtocols: ["spl-token"] })
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest: protocolOutside }), "protocol 'system-program'")
  })

  it("refuses an expired manifest", async () => {
    const agent = await newAgent()
    const manifest = await issue(agent.id, { allowedIntents: ["query_balance"], allowedProtocols: ["system-program"], ttlSeconds: 1 })
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest }), "expired")
  })

  it("revokes one manifest on its own; verify tells valid from revoked", async () => {
    const agent = await newAgent()
    const revoked = await issue(agent.id)
    const kept = await issue(agent.id)
    const revocation = await post(`/api/v1/agents/${agent.id}/manifest/revoke`, { nonce: revoked.nonce, reason: "leaked" })
    expect(revocation.status).toBe(200)
    expect(revocation.body.data).toMatchObject({ nonce: revoked.nonce, revoked: true, reason: "leaked" })
    expectRefused(await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest: revoked }), "revoked")
    expect((await post(`/api/v1/agents/${agent.id}/execute`, { ...queryBalance, manifest: kept })).status).toBe(201)
    expect((await post(`/api/v1/agents/${agent.id}/manifest/verify`, { manifest: kept })).body.data).toEqual({ valid: true, reason: "manifest is valid" })
    expect((await post(`/api/v1/agents/${agent.id}/manifest/verify`, { manifest: revoked })).body.data).toEqual({ valid: false, reason: "manifest was revoked" })
    expect((await post<ManifestVerification>(`/api/v1/agents/${agent.id}/manifest/verify`, { manifest: {} })).body.data.valid).toBe(false)
    expect((await post(`/api/v1/agents/${agent.id}/manifest/verify`, {})).status).toBe(400)
    expect((await post(`/api/v1/agents/${agent.id}/manifest/revoke`, { nonce: "unknown" })).status).toBe(404)
  })

  it("starts an autonomous agent only after a passing backtest on its wallet", async () => {
    const agent = await newAgent()
    const refused = await post(`/api/v1/agents/${agent.id}/start`)
    expectRefused(refused, "passing backtest")
    const step = { type: "transfer_sol", protocol: "system-program", intent: {}, timestamp: "2025-01-01T00:00:00Z" }
    const failing = await post("/api/v1/strategy/backtest", { walletId: agent.walletId, name: "bad", steps: [step, { ...step, simulatedPnlLamports: -5 }] })
    expect(failing.body.data).toMatchObject({ passed: false, passRate: 0.5, minimumPassRate: 1 })
    expectRefused(await post(`/api/v1/agents/${agent.id}/start`), "passing backtest")
    const passing = await post<BacktestRunWire>("/api/v1/strategy/backtest", { walletId: agent.walletId, name: "good", steps: [step], minimumPassRate: 1 })
    expect(passing.body.data.passed).toBe(true)
    expect((await post<AgentWire>(`/api/v1/agents/${agent.id}/start`)).body.data.status).toBe("running")
  })
})
