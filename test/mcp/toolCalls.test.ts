/**
 * The spec's tool interface on the gateway: GET /mcp/tools and POST /mcp/call. Tool calls run with the
 * caller's own key, so tenancy and scopes hold through every tool; errors follow the spec's rules.
 */
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js"
import { randomUUID } from "node:crypto"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import type { CreatedWallet } from "../../schemas/api/wallets.js"
import type { SignAnswer } from "../support/undeclaredAnswers.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY, api } from "../support/service.js"

const TENANT_A_KEY = "tenant-a-key"
const TENANT_B_KEY = "tenant-b-key"
const NO_WALLETS_KEY = "no-wallets-key"
const RATE_COUNTED_KEY = "rate-counted-key"

const env = useServiceWithLedger({
  env: {
    API_GATEWAY_API_KEYS: [
      `${ADMIN_KEY}:*:all`,
      `${TENANT_A_KEY}:tenant-a:all`,
      `${TENANT_B_KEY}:tenant-b:all`,
      `${NO_WALLETS_KEY}:*:mcp,transactions,policies`,
      `${RATE_COUNTED_KEY}:*:all`
    ].join(";")
  }
})

/** A tool call answers the envelope of the route it stands for: `D` names that route's data (its encoded schema type). */
type WalletWire = typeof CreatedWallet.Encoded

const call = <D = unknown>(tool: string, args: unknown, key = ADMIN_KEY) => api<D>(env.service.baseUrl, "POST", "/mcp/call", { tool, args }, { "x-api-key": key })

/** Every tool the spec's "Tool interface" section names. */
const SPEC_TOOLS = [
  "wallet.create", "wallet.list", "wallet.get", "wallet.balance", "wallet.tokens", "wallet.sign_message", "wallet.sign_transaction",
  "tx.create", "tx.get", "tx.retry", "tx.approve", "tx.reject", "tx.proof", "tx.replay", "tx.list_by_wallet", "tx.pending_approvals", "tx.positions", "tx.escrows",
  "policy.create", "policy.list_wallet", "policy.compatibility_check", "policy.migrate", "policy.evaluate",
  "agent.create", "agent.list", "agent.get", "agent.capabilities_update", "agent.start", "agent.stop", "agent.resume", "agent.budget", "agent.pause",
  "agent.manifest_issue", "agent.manifest_verify", "agent.execute",
  "protocol.list", "protocol.health_all", "protocol.capabilities", "protocol.health", "protocol.quote", "protocol.swap", "protocol.stake", "protocol.unstake",
  "protocol.lend_supply", "protocol.lend_borrow", "protocol.escrow_create", "protocol.escrow_accept", "protocol.escrow_release", "protocol.escrow_refund",
  "protocol.escrow_dispute", "protocol.escrow_resolve",
  "risk.list_protocols", "risk.get_protocol", "risk.set_protocol", "risk.list_portfolio", "risk.get_portfolio", "risk.set_portfolio", "risk.get_chaos", "risk.set_chaos",
  "strategy.backtest", "strategy.paper_execute", "strategy.paper_list", "treasury.allocate", "treasury.rebalance",
  "audit.events", "audit.metrics", "gateway.request"
]

describe("GET /mcp/tools", () => {
  it("lists more than 70 tools, every spec tool among them, each with a JSON Schema of its arguments", async () => {
    const listed = await api(env.service.baseUrl, "GET", "/mcp/tools")
    expect(listed.status).toBe(200)
    const tools = listed.body.data as Array<{ name: string; description: string; inputSchema: { type: string; required?: string[] } }>
    expect(tools.length).toBeGreaterThan(70)
    const names = tools.map((t) => t.name)
    expect(names.filter((name) => !SPEC_TOOLS.includes(name)).length + SPEC_TOOLS.length).toBe(names.length)
    for (const name of SPEC_TOOLS) expect(names).toContain(name)
    // beyond the spec: the way out of a lending supply and borrow (docs/decisions/lending.md)
    expect(names).toEqual(expect.arrayContaining(["protocol.lend_withdraw", "protocol.lend_repay"]))
    for (const t of tools) {
      expect(t.description.length).toBeGreaterThan(5)
      expect(t.inputSchema.type).toBe("object")
    }
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get("tx.create")!.inputSchema.required).toEqual(expect.arrayContaining(["walletId", "type", "protocol", "intent"]))
    expect(byName.get("gateway.request")!.inputSchema.required).toEqual(expect.arrayContaining(["path", "method"]))
  })

  it("takes a tool by the spec's dotted name or by its MCP name (wallet_get)", async () => {
    const created = await call<WalletWire>("wallet_create", { label: "mcp name" })
    expect(created.status).toBe(200)
    const dotted = await call<WalletWire>("wallet.get", { walletId: created.body.data.id })
    const underscored = await call<WalletWire>("wallet_get", { walletId: created.body.data.id })
    expect(underscored.body.data).toEqual(dotted.body.data)
    expect((await call("wallet_teleport", {})).status).toBe(404)
  })

  it("needs the mcp scope", async () => {
    const refused = await api(env.service.baseUrl, "GET", "/mcp/tools", undefined, {})
    expect(refused.status).toBe(401)
  })
})

describe("POST /mcp/call", () => {
  it("runs a tool against the gateway and answers its data", async () => {
    const created = await call<WalletWire>("wallet.create", { label: "via tool" })
    expect(created.status).toBe(200)
    expect(created.body.status).toBe("success")
    const got = await call<WalletWire>("wallet.get", { walletId: created.body.data.id })
    expect(got.body.data).toMatchObject({ id: created.body.data.id, label: "via tool", publicKey: created.body.data.publicKey })
  })

  it("counts a tool call once against the key's rate limit, whatever requests the tool makes inside", async () => {
    const remaining = (answer: { headers: Headers }) => Number(answer.headers.get("x-ratelimit-remaining"))
    const created = await call<WalletWire>("wallet.create", { label: "counted" }, RATE_COUNTED_KEY)
    expect(created.status).toBe(200)
    const afterCreate = remaining(created)
    // wallet.get makes a gateway request inside; the tool call takes one unit, not two.
    const got = await call<WalletWire>("wallet.get", { walletId: created.body.data.id }, RATE_COUNTED_KEY)
    expect(got.status).toBe(200)
    expect(remaining(got)).toBe(afterCreate - 1)
    const direct = await makeClient(env.service.baseUrl, { "x-api-key": RATE_COUNTED_KEY }).wallets.get({ params: { walletId: created.body.data.id } })
    expect(remaining(direct)).toBe(afterCreate - 2)
    // The marker of inner calls cannot be forged: a client sending the header is counted as usual.
    const forged = await makeClient(env.service.baseUrl, { "x-api-key": RATE_COUNTED_KEY, "x-custody-inner-call": "AAAA" }).wallets.get({ params: { walletId: created.body.data.id } })
    expect(remaining(forged)).toBe(afterCreate - 3)
  })

  it("answers 404 for an unknown tool and 400 naming a missing or mistyped argument", async () => {
    const unknown = await call("wallet.teleport", {})
    expect(unknown.status).toBe(404)
    expect(unknown.body.error).toContain("wallet.teleport")
    const missing = await call<WalletWire>("wallet.get", {})
    expect(missing.status).toBe(400)
    expect(missing.body.error).toContain("args.walletId")
    const mistyped = await call("tx.create", { walletId: randomUUID(), type: "teleport", protocol: "system-program", intent: {} })
    expect(mistyped.status).toBe(400)
    expect(mistyped.body.error).toContain("args.type")
    const extra = await call<WalletWire>("wallet.get", { walletId: randomUUID(), walletid: "x" })
    expect(extra.status).toBe(400)
    expect(extra.body.error).toContain("args.walletid")
  })

  it("surfaces a gateway refusal as 500 with its errorCode, stage and traceId", async () => {
    const wallet = (await call<WalletWire>("wallet.create", { autoFund: true, fundLamports: 1_000_000_000 })).body.data
    const policy = await call("policy.create", { walletId: wallet.id, name: "small", active: true, rules: [{ type: "spending_limit", maxLamportsPerTx: 1000 }] })
    expect(policy.status).toBe(200)
    const refused = await call("tx.create", {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", waitMs: 10_000,
      intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 }
    })
    expect(refused.status).toBe(500)
    expect(refused.body.error).toContain("POLICY_VIOLATION")
    expect(refused.body.error).toContain("stage policy")
    const traceId = /traceId ([0-9a-f-]{36})/.exec(refused.body.error ?? "")?.[1]
    expect(traceId).toBeDefined()
    expect(refused.body.data).toMatchObject({ errorCode: "POLICY_VIOLATION", stage: "policy", traceId })
  })

  it("gateway.request keeps to /api/v1 paths and the five methods", async () => {
    for (const path of ["/../health", "/api/v2/x", "/api/v1/../health", "/api/v1/wallets?limit=1", "api/v1/wallets"]) {
      const refused = await call("gateway.request", { path, method: "GET" })
      expect(refused.status, path).toBe(400)
      expect(refused.body.error).toContain("args.path")
    }
    const badMethod = await call("gateway.request", { path: "/api/v1/wallets", method: "TRACE" })
    expect(badMethod.status).toBe(400)
    expect(badMethod.body.error).toContain("args.method")
    const listed = await call<{ readonly limit: number }>("gateway.request", { path: "/api/v1/wallets", method: "GET", query: { limit: 1 } })
    expect(listed.status).toBe(200)
    expect(listed.body.data.limit).toBe(1)
  })

  it("a caller without the wallets scope cannot create a wallet through wallet.create", async () => {
    const before = (await makeClient(env.service.baseUrl).wallets.list({ query: { limit: "1" } })).body.data.total
    const refused = await call<WalletWire>("wallet.create", { label: "sneaky" }, NO_WALLETS_KEY)
    expect(refused.status).toBe(500)
    expect(refused.body.error).toContain("HTTP 403")
    expect(refused.body.error).toContain("wallets")
    const viaGeneric = await call("gateway.request", { path: "/api/v1/wallets", method: "POST", body: { label: "sneaky" } }, NO_WALLETS_KEY)
    expect(viaGeneric.status).toBe(500)
    expect((await makeClient(env.service.baseUrl).wallets.list({ query: { limit: "1" } })).body.data.total).toBe(before)
  })

  it("a tenant-bound caller cannot reach another tenant's wallet through any tool", async () => {
    const walletB = (await call<WalletWire>("wallet.create", { autoFund: true, fundLamports: 1_000_000_000 }, TENANT_B_KEY)).body.data
    expect(walletB.id).toBeDefined()
    const tools = (await api(env.service.baseUrl, "GET", "/mcp/tools")).body.data as Array<{ name: string; inputSchema: { required?: string[] } }>
    const destination = Keypair.generate().publicKey.toBase58()
    const sample: Record<string, unknown> = {
      walletId: walletB.id, walletAddress: walletB.publicKey, type: "transfer_sol", protocol: "system-program",
      intent: { destination, lamports: 1000 }, name: "x", rules: [{ type: "spending_limit", maxLamportsPerTx: 1 }], active: true,
      message: Buffer.from("hello").toString("base64"), transaction: Buffer.from("not a transaction").toString("base64"),
      steps: [{ type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1 }, timestamp: new Date().toISOString() }],
      agentId: randomUUID(), escrowId: "1", creator: walletB.publicKey, counterparty: walletB.publicKey, feeRecipient: walletB.publicKey,
      winnerIsCreator: false
    }
    const walletTools = tools.filter((t) => t.inputSchema.required?.includes("walletId"))
    expect(walletTools.length).toBeGreaterThan(15)
    for (const t of walletTools) {
      const args = Object.fromEntries((t.inputSchema.required ?? []).map((key) => [key, sample[key]]))
      const attempt = await call(t.name, args, TENANT_A_KEY)
      expect(attempt.body.status, t.name).toBe("failure")
      expect(attempt.status, `${t.name}: ${attempt.body.error}`).toBe(500)
    }
    for (const [method, path] of [["GET", `/api/v1/wallets/${walletB.id}`], ["POST", `/api/v1/wallets/${walletB.id}/sign`]] as const) {
      const generic = await call("gateway.request", { path, method, body: { message: sample.message } }, TENANT_A_KEY)
      expect(generic.status).toBe(500)
    }
    // Nothing happened to B's wallet: no transaction, no policy, and B still sees it.
    expect((await call<{ readonly total: number }>("tx.list_by_wallet", { walletId: walletB.id }, TENANT_B_KEY)).body.data.total).toBe(0)
    expect((await call<{ readonly total: number }>("policy.list_wallet", { walletId: walletB.id }, TENANT_B_KEY)).body.data.total).toBe(0)
    expect((await call<WalletWire>("wallet.get", { walletId: walletB.id }, TENANT_B_KEY)).body.data.id).toBe(walletB.id)
    const aTenantHeader = await api(env.service.baseUrl, "POST", "/mcp/call", { tool: "wallet.list", args: {} }, { "x-api-key": TENANT_A_KEY, "x-tenant-id": "tenant-b" })
    expect(aTenantHeader.status).toBe(403)
  })

  it("wallet.sign_transaction and wallet.sign_message sign only under the wallet's policy", async () => {
    const wallet = (await call<WalletWire>("wallet.create", { autoFund: true, fundLamports: 1_000_000_000 })).body.data
    expect((await call("policy.create", { walletId: wallet.id, name: "cap", active: true, rules: [{ type: "spending_limit", maxLamportsPerTx: 2_000_000 }] })).status).toBe(200)
    const { blockhash } = await new Connection(env.ledger.rpcUrl).getLatestBlockhash()
    const transfer = (lamports: number) =>
      new Transaction({ feePayer: new PublicKey(wallet.publicKey), recentBlockhash: blockhash })
        .add(SystemProgram.transfer({ fromPubkey: new PublicKey(wallet.publicKey), toPubkey: Keypair.generate().publicKey, lamports }))
        .serialize({ requireAllSignatures: false, verifySignatures: false })
        .toString("base64")
    const refused = await call<SignAnswer>("wallet.sign_transaction", { walletId: wallet.id, transaction: transfer(5_000_000) })
    expect(refused.status).toBe(500)
    expect(refused.body.error).toContain("POLICY_VIOLATION at stage policy")
    const signed = await call<SignAnswer>("wallet.sign_transaction", { walletId: wallet.id, transaction: transfer(1_000_000) })
    expect(signed.status, signed.body.error).toBe(200)
    expect(signed.body.data).toMatchObject({ publicKey: wallet.publicKey })
    expect(Buffer.from(signed.body.data.signature, "base64")).toHaveLength(64)
    const message = await call<SignAnswer>("wallet.sign_message", { walletId: wallet.id, message: Buffer.from("hello").toString("base64") })
    expect(message.status, message.body.error).toBe(200)
    expect(Buffer.from(message.body.data.signature, "base64")).toHaveLength(64)
  })
})
