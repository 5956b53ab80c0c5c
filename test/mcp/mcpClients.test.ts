/**
 * The official MCP SDK Client (not ours) against our MCP server, over stdio (`npm run mcp`, a child
 * process configured by API_BASE_URL / API_KEY, which runs the build, dist/mcp.js, made once per test run, while it
 * is current: src/programBuild.mjs) and over Streamable HTTP on the gateway (`POST /mcp`,
 * Bearer key): it lists the tools, creates a wallet, sends a transfer to confirmation and reads its
 * proof, then passes an approval gate through tx.pending_approvals and tx.approve.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js"
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { currentBuild } from "../../src/programBuild.mjs"
import { useServiceWithLedger } from "../support/harness.js"
import { ADMIN_KEY } from "../support/service.js"
import { buildOnceForThisRun } from "../support/serviceBuild.js"
import { waitFor } from "../support/wait.js"

beforeAll(buildOnceForThisRun)
const env = useServiceWithLedger()
const REPO_ROOT = fileURLToPath(new URL("../..", import.meta.url))

const transports: Record<string, () => Transport> = {
  stdio: () =>
    new StdioClientTransport({
      command: "npm",
      args: ["run", "--silent", "mcp"],
      cwd: REPO_ROOT,
      env: { ...(process.env as Record<string, string>), API_BASE_URL: env.service.baseUrl, API_KEY: ADMIN_KEY },
      stderr: "ignore"
    }),
  "streamable HTTP": () =>
    new StreamableHTTPClientTransport(new URL(`${env.service.baseUrl}/mcp`), { requestInit: { headers: { authorization: `Bearer ${ADMIN_KEY}` } } })
}

const connect = async (transport: Transport) => {
  const client = new Client({ name: "custody-test", version: "1.0.0" })
  await client.connect(transport)
  return client
}

const callOk = async (c: Client, name: string, args: Record<string, unknown>) => {
  const result = await c.callTool({ name, arguments: args })
  if (result.isError === true) throw new Error(`${name}: ${JSON.stringify(result.content)}`)
  return result.structuredContent as Record<string, any>
}

/** Reads the transaction through the `tx_get` tool until it reaches one of `statuses` (or failed). */
const waitForTool = async (c: Client, txId: string, statuses: ReadonlyArray<string>) => {
  let tx: Record<string, any> = {}
  await waitFor(`transaction ${txId} to reach ${statuses.join(" or ")}`, async () => {
    tx = await callOk(c, "tx_get", { txId })
    return statuses.includes(tx.status) || tx.status === "failed"
  }, 30_000, 100)
  return tx
}

describe.each(Object.keys(transports))("MCP SDK client over %s", (name) => {
  // One client (for stdio: one child process) per transport for all its tests.
  let shared: Client
  beforeAll(async () => {
    shared = await connect(transports[name]!())
  })
  afterAll(async () => {
    await shared?.close()
  })

  it("lists more than 70 tools under names MCP hosts accept, with input and output schemas and annotations", async () => {
    const c = shared
    const { tools } = await c.listTools()
    expect(tools.length).toBeGreaterThan(70)
    for (const t of tools) {
      expect(t.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/)
      expect(t.inputSchema.type).toBe("object")
      expect(t.outputSchema?.type).toBe("object")
    }
    const byName = new Map(tools.map((t) => [t.name, t]))
    expect(byName.get("tx_create")!.inputSchema.required).toEqual(expect.arrayContaining(["walletId", "type", "protocol", "intent"]))
    // Tools that move value or create tell the host how to call again safely.
    for (const name of ["tx_create", "agent_execute", "treasury_allocate", "treasury_rebalance", "wallet_create", "policy_create", "agent_create"]) {
      const properties = byName.get(name)!.inputSchema.properties as Record<string, { description?: string }>
      expect(properties.idempotencyKey?.description, name).toMatch(/a repeat with it answers what the first did/)
    }
    expect(byName.get("wallet_get")!.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true })
    expect(byName.get("wallet_sign_transaction")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: false })
  })

  it("wallet_create -> tx_create (transfer_sol) -> tx_get until confirmed -> tx_proof", async () => {
    const c = shared
    const wallet = await callOk(c, "wallet_create", { label: `mcp ${name}`, autoFund: true, fundLamports: 1_000_000_000 })
    const destination = Keypair.generate().publicKey.toBase58()
    const request = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 2_000_000 }, idempotencyKey: `mcp-${destination}` }
    const created = await callOk(c, "tx_create", request)
    // A host that calls again after a timeout, with the same key as the tool asks: the first transaction, paid once.
    expect((await callOk(c, "tx_create", request)).id).toBe(created.id)
    const settled = await waitForTool(c, created.id, ["confirmed"])
    expect(settled.status).toBe("confirmed")
    const proof = await callOk(c, "tx_proof", { txId: created.id })
    expect(proof).toMatchObject({ txId: created.id, walletId: wallet.id, signature: settled.signature })
    expect(proof.proofHash).toMatch(/^[0-9a-f]{64}$/)
    expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(2_000_000)
  })

  it("a policy that requires approval -> tx_pending_approvals -> tx_approve -> confirmed", async () => {
    const c = shared
    const wallet = await callOk(c, "wallet_create", { autoFund: true, fundLamports: 1_000_000_000 })
    await callOk(c, "policy_create", { walletId: wallet.id, name: "approve big", active: true, rules: [{ type: "spending_limit", requireApprovalAboveLamports: 1_000_000 }] })
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await callOk(c, "tx_create", { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 3_000_000 } })
    expect((await waitForTool(c, created.id, ["approval_gate"])).status).toBe("approval_gate")
    const pending = await callOk(c, "tx_pending_approvals", { walletId: wallet.id })
    expect(pending.transactions.map((t: { id: string }) => t.id)).toEqual([created.id])
    // an agent (or its operator) approves the preview it read: a hash of another preview is refused
    const waiting = pending.transactions[0] as { approval: { previewHash: string; preview: { summary: string } } }
    expect(waiting.approval.preview.summary).toContain(`Transfer 0.003 SOL from this wallet to ${destination}`)
    const stale = await c.callTool({ name: "tx_approve", arguments: { txId: created.id, previewHash: "f".repeat(64) } })
    expect(stale.isError).toBe(true)
    expect(JSON.stringify(stale.content)).toContain("changed since it was shown")
    await callOk(c, "tx_approve", { txId: created.id, previewHash: waiting.approval.previewHash })
    expect((await waitForTool(c, created.id, ["confirmed"])).status).toBe("confirmed")
    expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(3_000_000)
  })

  it("reports a bad argument as a tool error and an unknown tool as a protocol error", async () => {
    const c = shared
    const bad = await c.callTool({ name: "wallet_get", arguments: { walletId: "nope" } })
    expect(bad.isError).toBe(true)
    expect(JSON.stringify(bad.content)).toContain("args.walletId")
    // A gateway refusal is a tool error carrying its errorCode, stage and traceId in the text.
    const missing = await c.callTool({ name: "wallet_get", arguments: { walletId: "00000000-0000-4000-8000-000000000000" } })
    expect(missing.isError).toBe(true)
    expect(JSON.stringify(missing.content)).toMatch(/VALIDATION_ERROR at stage validation \(HTTP 404, traceId [0-9a-f-]{36}\)/)
    await expect(c.callTool({ name: "wallet_teleport", arguments: {} })).rejects.toThrow(/unknown tool/)
  })
})

describe("Streamable HTTP authentication", () => {
  it("refuses a client without a key", async () => {
    await expect(connect(new StreamableHTTPClientTransport(new URL(`${env.service.baseUrl}/mcp`)))).rejects.toThrow()
  })
})

describe("npm run mcp", () => {
  it("runs the MCP server's build while it is current (the stdio client above talked to dist/mcp.js)", () => {
    expect(currentBuild(REPO_ROOT, "mcp")).toBe(path.join(REPO_ROOT, "dist", "mcp.js"))
  })
})
