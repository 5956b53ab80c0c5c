/**
 * Every tool, as an MCP host sees it (issue 32): the MCP SDK's own Client over Streamable HTTP lists the tools,
 * every name matches what hosts accept (`^[a-zA-Z0-9_-]{1,64}$`), every tool declares an object outputSchema and
 * honest annotations, and every one of the tools is then called for real, with success, on a ledger with all
 * our programs: the SDK client checks each structured result against the tool's outputSchema (it throws on a
 * mismatch), and so does Ajv here, explicitly. A tool's required arguments are its route's (the exceptions named).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { NATIVE_MINT } from "@solana/spl-token"
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js"
import { Ajv } from "ajv"
import { JSONSchema } from "effect"
import { readFileSync } from "node:fs"
import { Agent, fetch as undiciFetch } from "undici"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LOCAL_ESCROW_PROGRAM_ID } from "../../src/config.js"
import { TOOLS } from "../../src/mcp/catalog.js"
import { argsJsonSchema } from "../../src/mcp/toolDefinition.js"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { LOCAL_LENDING_MARKET_PROGRAM_ID } from "../../src/protocols/lending/lendingIds.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../../src/protocols/staking/stakingIds.js"
import { useServiceWithLedger } from "../support/harness.js"
import { ADMIN_KEY } from "../support/service.js"

const env = useServiceWithLedger({
  ledger: { escrow: true, staking: true, lending: true },
  env: {
    ESCROW_PROGRAM_ID: LOCAL_ESCROW_PROGRAM_ID,
    LIQUID_STAKING_PROGRAM_ID: LOCAL_LIQUID_STAKING_PROGRAM_ID,
    LENDING_MARKET_PROGRAM_ID: LOCAL_LENDING_MARKET_PROGRAM_ID,
    AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"],
    AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"],
    CHAOS_ENABLED: "true",
    AGENT_MANIFEST_SIGNING_SECRET: "tool-outputs-manifest-secret",
    AGENT_SCHEDULER_ENABLED: "false",
    API_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000"
  },
  timeoutMs: 180_000
})

const HOST_NAME = /^[a-zA-Z0-9_-]{1,64}$/
const SOL = NATIVE_MINT.toBase58()
const USDC = mintBySymbol("USDC").address.toBase58()

let client: Client
let listed: Awaited<ReturnType<Client["listTools"]>>["tools"]
const ajv = new Ajv({ strict: false, allErrors: true })
const called = new Set<string>()

beforeAll(async () => {
  client = new Client({ name: "custody-tool-outputs", version: "1.0.0" })
  // One connection per request: the service runs in this process and shares its HTTP client pool (the tools'
  // calls back into the gateway), and under load a reused idle socket was seen reset (ECONNRESET) before a call.
  const agent = new Agent({ pipelining: 0 })
  const fetchWithAgent = (url: string | URL, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher: agent }) as unknown as Promise<Response>
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.service.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}` } }, fetch: fetchWithAgent })
  )
  listed = (await client.listTools()).tools
}, 60_000)
afterAll(async () => {
  await client?.close()
})

/** Calls a tool through the SDK (which checks its output schema), checks it with Ajv too, and returns the structured content. */
const ok = async (name: string, args: Record<string, unknown> = {}): Promise<Record<string, any>> => {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
  if (result.isError === true) throw new Error(`${name}(${JSON.stringify(args)}): ${JSON.stringify(result.content)}`)
  const tool = listed.find((t) => t.name === name)!
  const validate = ajv.compile(tool.outputSchema!)
  expect(validate(result.structuredContent), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true)
  called.add(name)
  return result.structuredContent as Record<string, any>
}

const base64Transfer = async (from: string, lamports: number) => {
  const { blockhash } = await new Connection(env.ledger.rpcUrl).getLatestBlockhash()
  return new Transaction({ feePayer: new PublicKey(from), recentBlockhash: blockhash })
    .add(SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: Keypair.generate().publicKey, lamports }))
    .serialize({ requireAllSignatures: false, verifySignatures: false })
    .toString("base64")
}
const destination = () => Keypair.generate().publicKey.toBase58()
const transfer = (walletId: string, lamports: number, extra: Record<string, unknown> = {}) => ({
  walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports }, ...extra
})

describe("the tools an MCP host sees", () => {
  it("are all of the catalog's, named as hosts accept (one MCP name per tool), each with an object output schema and honest annotations", () => {
    expect(listed.length).toBeGreaterThanOrEqual(84)
    expect(listed).toHaveLength(TOOLS.length)
    expect(new Set(listed.map((t) => t.name)).size).toBe(TOOLS.length)
    for (const t of listed) {
      expect(t.name).toMatch(HOST_NAME)
      expect(t.outputSchema?.type, t.name).toBe("object")
      expect(t.annotations, t.name).toMatchObject({ readOnlyHint: expect.any(Boolean), destructiveHint: expect.any(Boolean), idempotentHint: expect.any(Boolean) })
      if (t.annotations!.readOnlyHint === true) expect(t.annotations, t.name).toMatchObject({ destructiveHint: false, idempotentHint: true })
    }
    const hints = (name: string) => listed.find((t) => t.name === name)!.annotations
    expect(hints("tx_create")).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false })
    expect(hints("tx_retry")).toMatchObject({ destructiveHint: true })
    expect(hints("protocol_quote")).toMatchObject({ readOnlyHint: true })
    expect(hints("risk_set_protocol")).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true })
    expect(hints("audit_record_event")).toMatchObject({ readOnlyHint: false, destructiveHint: false })
  })

  it("are counted right in the README", () => {
    const readme = readFileSync(fileURLToPath(new URL("../../README.md", import.meta.url)), "utf8")
    expect(readme.match(/^(\d+) tools \(the spec's tool list/m)?.[1]).toBe(String(TOOLS.length))
  })

  it("require what their routes require (exceptions named)", () => {
    /** Why a tool's required arguments differ from its route's. */
    const EXCEPTIONS: Record<string, string> = {
      "wallet.sign_message": "the route takes exactly one of message / transaction; the tool is the message half",
      "wallet.sign_transaction": "the transaction half of the same route",
      "tx.positions": "the tool fills the query_positions intent",
      "agent.manifest_issue": "the route also takes the aliases intents / protocols; the tool asks for the canonical names",
      "protocol.quote": "the route takes wallet or its alias walletAddress; the tool the spec's walletAddress",
      "protocol.swap": "as quote",
      "protocol.stake": "as quote",
      "protocol.unstake": "as quote",
      "protocol.lend_supply": "as quote",
      "protocol.lend_borrow": "as quote",
      "protocol.lend_withdraw": "as quote",
      "protocol.lend_repay": "as quote",
      "protocol.escrow_create": "the spec's tool takes the create_escrow intent as `intent`, the route its fields flat",
      "protocol.escrow_accept": "the escrow id is `escrowId` (the route's path parameter `id`)",
      "protocol.escrow_release": "as accept",
      "protocol.escrow_refund": "as accept",
      "protocol.escrow_dispute": "as accept",
      "protocol.escrow_resolve": "as accept"
    }
    const required = (schema: unknown): Array<string> => {
      if (schema === undefined) return []
      const json = JSONSchema.make(schema as never) as { $ref?: string; $defs?: Record<string, { required?: Array<string> }>; required?: Array<string> }
      const target = json.$ref === undefined ? json : json.$defs![json.$ref.split("/").pop()!]!
      return target.required ?? []
    }
    for (const tool of TOOLS) {
      if (tool.endpoint === undefined || EXCEPTIONS[tool.name] !== undefined) continue
      const route = [...required(tool.endpoint.params), ...required(tool.endpoint.body), ...required(tool.endpoint.query)]
      const own = (argsJsonSchema(tool).required as Array<string> | undefined) ?? []
      expect([...own].sort(), tool.name).toEqual([...new Set(route)].sort())
    }
  })
})

describe("every tool, called for real, answers what its output schema says", () => {
  it("wallets, transactions, approvals, signing", async () => {
    const a = await ok("wallet_create", { label: "tools a", autoFund: true, fundLamports: 5_000_000_000 })
    await ok("wallet_list", { limit: 5 })
    await ok("wallet_get", { walletId: a.id })
    await ok("wallet_balance", { walletId: a.id })
    await ok("wallet_tokens", { walletId: a.id })
    await ok("wallet_sign_message", { walletId: a.id, message: Buffer.from("hello from a host").toString("base64") })
    await ok("wallet_sign_transaction", { walletId: a.id, transaction: await base64Transfer(a.publicKey, 1_000_000) })

    const sent = await ok("tx_create", transfer(a.id, 1_000_000))
    expect(sent.status).toBe("confirmed")
    await ok("tx_get", { txId: sent.id })
    await ok("tx_proof", { txId: sent.id })
    await ok("tx_replay", { txId: sent.id })
    await ok("tx_list_by_wallet", { walletId: a.id, limit: 5 })
    await ok("tx_positions", { walletId: a.id })
    await ok("tx_escrows", { walletId: a.id })

    const gated = await ok("wallet_create", { label: "tools gated", autoFund: true, fundLamports: 1_000_000_000 })
    await ok("policy_create", { walletId: gated.id, name: "approve all", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 1 }] })
    const waiting = await ok("tx_create", transfer(gated.id, 2_000_000))
    expect(waiting.status).toBe("approval_gate")
    await ok("tx_pending_approvals", { walletId: gated.id })
    expect((await ok("tx_approve", { txId: waiting.id })).id).toBe(waiting.id)
    const refused = await ok("tx_create", transfer(gated.id, 2_000_000))
    expect((await ok("tx_reject", { txId: refused.id, reason: "not today" })).status).toBe("failed")

    // An empty wallet cannot pay: the transfer fails in the pipeline (PIPELINE_ERROR), which may be retried.
    const empty = await ok("wallet_create", { label: "tools empty" })
    const unpaid = await client.callTool({ name: "tx_create", arguments: transfer(empty.id, 5_000_000) })
    expect(unpaid.isError).toBe(true)
    expect(JSON.stringify(unpaid.content)).toContain("PIPELINE_ERROR")
    const listedFailed = await ok("tx_list_by_wallet", { walletId: empty.id, status: "failed" })
    expect(listedFailed.transactions).toHaveLength(1)
    expect((await ok("tx_retry", { txId: listedFailed.transactions[0].id })).id).toBe(listedFailed.transactions[0].id)
  }, 180_000)

  it("policies, risk, chaos, audit, operations and the generic request", async () => {
    const w = await ok("wallet_create", { label: "tools policy" })
    const policy = await ok("policy_create", { walletId: w.id, name: "cap", active: true, rules: [{ type: "spending_limit", maxLamportsPerTx: 5_000_000 }] })
    await ok("policy_list_wallet", { walletId: w.id })
    expect((await ok("policy_list", { walletId: w.id, active: true })).policies).toHaveLength(1)
    await ok("policy_compatibility_check", { rules: [{ type: "spending_limit", maxLamportsPerTx: 1 }] })
    await ok("policy_evaluate", { walletId: w.id, type: "transfer_sol", protocol: "system-program", amountLamports: 1_000, destination: destination() })
    await ok("policy_update", { policyId: policy.id, rules: [{ type: "spending_limit", maxLamportsPerTx: 1_000_000 }] })
    await ok("policy_versions", { policyId: policy.id })
    await ok("policy_version", { policyId: policy.id, version: 1 })
    await ok("policy_migrate", { policyId: policy.id, targetVersion: 2 })

    await ok("risk_list_protocols")
    await ok("risk_get_protocol", { protocol: "amm-one" })
    await ok("risk_set_protocol", { protocol: "amm-one", maxSlippageBps: 300 })
    await ok("risk_list_portfolio")
    await ok("risk_get_portfolio", { walletId: w.id })
    await ok("risk_set_portfolio", { walletId: w.id, autoPauseOnBreach: true })
    await ok("risk_get_chaos")
    await ok("risk_set_chaos", { enabled: false })
    const freeze = await ok("risk_freeze", { scope: "wallet", targetId: w.id, reason: "checking the kill switch" })
    await ok("risk_list_freezes", { state: "all" })
    await ok("risk_lift_freeze", { freezeId: freeze.id, reason: "checked" })

    await ok("audit_record_event", { eventType: "custom.tools", message: "from an MCP host", metadata: { via: "mcp" } })
    await ok("audit_events", { limit: 5 })
    await ok("audit_metrics")
    await ok("ops_rpc_pool_status")
    await ok("ops_outbox_stats")
    await ok("ops_actors")
    await ok("gateway_request", { path: "/api/v1/wallets", method: "GET", query: { limit: 1 } })
  }, 120_000)

  it("agents, manifests, strategy and treasury", async () => {
    const wallet = await ok("wallet_create", { label: "tools agent", autoFund: true, fundLamports: 2_000_000_000 })
    const agent = await ok("agent_create", { name: "tools agent", walletId: wallet.id, budgetLamports: 500_000_000 })
    const other = await ok("agent_create", { name: "tools other", budgetLamports: 100_000_000 })
    await ok("agent_list")
    await ok("agent_get", { agentId: agent.id })
    await ok("agent_capabilities_update", { agentId: agent.id, allowedIntents: ["transfer_sol", "query_balance"] })
    await ok("agent_start", { agentId: agent.id })
    await ok("agent_pause", { agentId: agent.id, reason: "checking" })
    await ok("agent_resume", { agentId: agent.id })
    await ok("agent_stop", { agentId: agent.id })
    await ok("agent_budget", { agentId: agent.id })
    await ok("agent_autonomy_state", { agentId: agent.id })
    const manifest = await ok("agent_manifest_issue", { agentId: agent.id, allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"] })
    expect((await ok("agent_manifest_verify", { agentId: agent.id, manifest })).valid).toBe(true)
    expect((await ok("agent_execute", { agentId: agent.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 1_000_000 } })).status).toBe("confirmed")
    await ok("agent_manifest_revoke", { agentId: agent.id, nonce: manifest.nonce })

    await ok("strategy_backtest", {
      walletId: wallet.id, name: "tools", steps: [{ type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 1 }, timestamp: new Date().toISOString() }]
    })
    await ok("strategy_paper_execute", { agentId: agent.id, walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 1 } })
    await ok("strategy_paper_list", { agentId: agent.id })
    await ok("treasury_allocate", { targetAgentId: agent.id, lamports: 1_000_000 })
    await ok("treasury_rebalance", { sourceAgentId: agent.id, targetAgentId: other.id, lamports: 1_000 })
  }, 120_000)

  it("protocols, DeFi previews and the escrow lifecycle", async () => {
    const creator = await ok("wallet_create", { label: "tools creator", autoFund: true, fundLamports: 8_000_000_000 })
    const counterparty = await ok("wallet_create", { label: "tools counterparty", autoFund: true, fundLamports: 1_000_000_000 })
    const arbiter = await ok("wallet_create", { label: "tools arbiter", autoFund: true, fundLamports: 1_000_000_000 })
    // One escrow that nobody accepts, due in 8 s: refunded at the end.
    const unaccepted = `${Date.now()}1`
    const createEscrow = (id: string, deadlineSeconds: number) =>
      ok("protocol_escrow_create", {
        walletId: creator.id, walletAddress: creator.publicKey,
        intent: {
          escrowNumericId: id, counterparty: counterparty.publicKey, creator: creator.publicKey, arbiter: arbiter.publicKey,
          feeRecipient: arbiter.publicKey, amount: "100000000", deadlineUnixSec: Math.floor(Date.now() / 1000) + deadlineSeconds
        }
      })
    const due = Date.now() + 8_000
    expect((await createEscrow(unaccepted, 8)).status).toBe("confirmed")

    await ok("protocol_list")
    await ok("protocol_health_all")
    await ok("protocol_capabilities", { protocol: "escrow" })
    await ok("protocol_health", { protocol: "escrow" })
    await ok("protocol_version", { protocol: "dex-aggregator" })
    await ok("protocol_compatibility_check", { protocol: "system-program", type: "transfer_sol", intent: { destination: destination(), lamports: 1 } })
    await ok("protocol_migrate_intent", { protocol: "dex-aggregator", intent: { inputMint: SOL, outputMint: USDC, amount: "1000", slippageBps: 50 }, targetVersion: "1.0.0" })
    await ok("protocol_quote", { protocol: "dex-aggregator", inputMint: SOL, outputMint: USDC, amount: "100000000", walletAddress: creator.publicKey })
    await ok("protocol_swap", { protocol: "amm-one", inputMint: SOL, outputMint: USDC, amount: "100000000", walletAddress: creator.publicKey, slippageBps: 100 })
    // Each preview carries the tx_create request that executes it: stake, so there is LST to unstake.
    const stake = await ok("protocol_stake", { protocol: "liquid-staking", walletAddress: creator.publicKey, amount: "1000000000" })
    expect((await ok("tx_create", stake.execute.body)).status).toBe("confirmed")
    await ok("protocol_unstake", { protocol: "liquid-staking", walletAddress: creator.publicKey, amount: "1000000" })
    const supply = await ok("protocol_lend_supply", { protocol: "lending-market", walletAddress: creator.publicKey, mint: SOL, amount: "1000000000" })
    expect((await ok("tx_create", supply.execute.body)).status).toBe("confirmed")
    const borrow = await ok("protocol_lend_borrow", { protocol: "lending-market", walletAddress: creator.publicKey, mint: USDC, amount: "1000000" })
    expect((await ok("tx_create", borrow.execute.body)).status).toBe("confirmed")
    await ok("protocol_lend_withdraw", { protocol: "lending-market", walletAddress: creator.publicKey, mint: SOL, amount: "1000000" })
    await ok("protocol_lend_repay", { protocol: "lending-market", walletAddress: creator.publicKey, mint: USDC, amount: "1000" })

    // Accepted, disputed and resolved for the counterparty.
    const disputed = `${Date.now()}2`
    expect((await createEscrow(disputed, 3600)).status).toBe("confirmed")
    expect((await ok("protocol_escrow_accept", { escrowId: disputed, walletId: counterparty.id, creator: creator.publicKey })).status).toBe("confirmed")
    expect((await ok("protocol_escrow_dispute", { escrowId: disputed, walletId: counterparty.id, creator: creator.publicKey })).status).toBe("confirmed")
    expect((await ok("protocol_escrow_resolve", { escrowId: disputed, walletId: arbiter.id, creator: creator.publicKey, winnerIsCreator: false })).status).toBe("confirmed")
    // Accepted and released by the creator.
    const released = `${Date.now()}3`
    expect((await createEscrow(released, 3600)).status).toBe("confirmed")
    expect((await ok("protocol_escrow_accept", { escrowId: released, walletId: counterparty.id, walletAddress: counterparty.publicKey, creator: creator.publicKey })).status).toBe("confirmed")
    expect(
      (await ok("protocol_escrow_release", { escrowId: released, walletId: creator.id, creator: creator.publicKey, counterparty: counterparty.publicKey, feeRecipient: arbiter.publicKey })).status
    ).toBe("confirmed")

    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now() + 1_500)))
    expect((await ok("protocol_escrow_refund", { escrowId: unaccepted, walletId: creator.id, creator: creator.publicKey })).status).toBe("confirmed")
  }, 180_000)

  it("API keys", async () => {
    const issued = await ok("keys_issue", { tenant: "tools-tenant", scopes: ["wallets"], label: "from a host" })
    expect(issued.secret).toMatch(/^agck_/)
    await ok("keys_list", { status: "active", limit: 5 })
    await ok("keys_get", { keyId: issued.id })
    const rotated = await ok("keys_rotate", { keyId: issued.id, graceSeconds: 60 })
    expect(rotated.previous.replacedBy).toBe(rotated.key.id)
    expect((await ok("keys_revoke", { keyId: rotated.key.id, reason: "tools test" })).status).toBe("revoked")
  })

  it("left none of them uncalled", () => {
    expect(listed.map((t) => t.name).filter((name) => !called.has(name))).toEqual([])
  })
})
