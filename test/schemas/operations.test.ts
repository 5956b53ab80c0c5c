import { describe, expect, it } from "vitest"
import { AuditQuery, MetricsIncBody, PostAuditEventBody } from "../../schemas/audit.js"
import { ChaosUpdateBody } from "../../schemas/chain.js"
import { EscrowCreateBody, EscrowResolveBody } from "../../schemas/escrow.js"
import { McpCallBody } from "../../schemas/mcp.js"
import { LendBody, QuoteBody, StakeBody } from "../../schemas/protocol.js"
import { BacktestBody } from "../../schemas/strategy.js"
import { AllocateBody, RebalanceBody } from "../../schemas/treasury.js"
import { decodeOk, issuesOf, pathsOf } from "./decode.js"

const AGENT_A = "5f0c6c1e-8f4b-4c1e-9a57-1f7d3c2b9a10"
const AGENT_B = "0b8e2c6a-3d7f-4a9b-8c1d-2e3f4a5b6c7d"
const WALLET = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"

describe("treasury", () => {
  it("allocate defaults the reason and requires positive lamports", () => {
    expect(decodeOk(AllocateBody, { targetAgentId: AGENT_A, lamports: 1000 })).toEqual({
      targetAgentId: AGENT_A,
      lamports: 1000n,
      reason: "treasury allocation"
    })
    expect(pathsOf(AllocateBody, { targetAgentId: AGENT_A, lamports: 0 })).toEqual(["lamports"])
    expect(pathsOf(AllocateBody, { lamports: 5, reason: "" })).toEqual(["reason", "targetAgentId"])
  })

  it("rebalance needs two different agents and a 1-256 reason", () => {
    expect(decodeOk(RebalanceBody, { sourceAgentId: AGENT_A, targetAgentId: AGENT_B, lamports: "5" }).reason).toBe("treasury rebalance")
    expect(issuesOf(RebalanceBody, { sourceAgentId: AGENT_A, targetAgentId: AGENT_A, lamports: 5 })).toEqual([
      { path: "targetAgentId", message: "must differ from sourceAgentId" }
    ])
    expect(pathsOf(RebalanceBody, { sourceAgentId: AGENT_A, targetAgentId: AGENT_B, lamports: 5, reason: "r".repeat(257) })).toEqual([
      "reason"
    ])
  })
})

describe("strategy", () => {
  const step = { type: "transfer_sol", protocol: "system-program", intent: {}, timestamp: "2025-01-01T00:00:00Z" }

  it("defaults minimumPassRate to 1 and each step's PnL to 0; PnL may be negative", () => {
    const decoded = decodeOk(BacktestBody, { walletId: AGENT_A, name: "dca", steps: [step, { ...step, simulatedPnlLamports: "-250" }] })
    expect(decoded.minimumPassRate).toBe(1)
    expect(decoded.steps.map((s) => s.simulatedPnlLamports)).toEqual([0n, -250n])
  })

  it("refuses zero steps, a bad timestamp and a pass rate above 1", () => {
    expect(pathsOf(BacktestBody, { walletId: AGENT_A, name: "x", steps: [] })).toEqual(["steps"])
    expect(pathsOf(BacktestBody, { walletId: AGENT_A, name: "x", steps: [{ ...step, timestamp: "yesterday" }], minimumPassRate: 1.5 })).toEqual([
      "minimumPassRate",
      "steps.0.timestamp"
    ])
  })
})

describe("audit and metrics", () => {
  it("defaults metadata and names a long eventType", () => {
    expect(decodeOk(PostAuditEventBody, { eventType: "custom.thing", message: "hi" })).toEqual({
      eventType: "custom.thing",
      message: "hi",
      metadata: {}
    })
    expect(pathsOf(PostAuditEventBody, { eventType: "e".repeat(129), message: "m", metadata: [] })).toEqual(["eventType", "metadata"])
  })

  it("reads query-string filters and paging", () => {
    expect(decodeOk(AuditQuery, { txId: AGENT_A, limit: "20" })).toEqual({ txId: AGENT_A, limit: 20, offset: 0 })
    expect(pathsOf(AuditQuery, { limit: "0", offset: "-1" })).toEqual(["limit", "offset"])
  })

  it("increments by 1 unless told otherwise", () => {
    expect(decodeOk(MetricsIncBody, { name: "tx.custom" })).toEqual({ name: "tx.custom", value: 1 })
    expect(pathsOf(MetricsIncBody, { name: "has space", value: 1.5 })).toEqual(["name", "value"])
  })
})

describe("chaos", () => {
  it("accepts a partial update and bounds rates to 0-1", () => {
    expect(decodeOk(ChaosUpdateBody, { failureRates: { send: 0.5 } })).toEqual({ failureRates: { send: 0.5 } })
    expect(issuesOf(ChaosUpdateBody, { failureRates: { sign: 1.2 }, latencyMs: -1 })).toEqual([
      { path: "failureRates.sign", message: "must be between 0 and 1" },
      { path: "latencyMs", message: "must be between 0 and 60000" }
    ])
  })
})

describe("DeFi and escrow helpers", () => {
  it("quote defaults slippage to 50 and only takes swap protocols", () => {
    const body = { protocol: "amm-one", inputMint: MINT, outputMint: WALLET, amount: "1000", wallet: WALLET }
    expect(decodeOk(QuoteBody, body)).toEqual({ ...body, amount: 1000n, slippageBps: 50 })
    expect(issuesOf(QuoteBody, { ...body, protocol: "lending-market" })).toEqual([
      { path: "protocol", message: "must be one of: dex-aggregator, amm-one, amm-two" }
    ])
  })

  it("stake and lend name their missing fields", () => {
    expect(pathsOf(StakeBody, { protocol: "liquid-staking" })).toEqual(["amount"])
    // `wallet` (or its alias walletAddress) is judged once the other fields decode.
    expect(pathsOf(StakeBody, { protocol: "liquid-staking", amount: "1" })).toEqual(["wallet"])
    expect(pathsOf(LendBody, { protocol: "lending-market", wallet: WALLET, mint: MINT, amount: "0" })).toEqual(["amount"])
  })

  it("escrow create is the create_escrow intent; resolve takes winnerIsCreator", () => {
    const create = {
      escrowNumericId: "42",
      counterparty: WALLET,
      creator: MINT,
      arbiter: WALLET,
      feeRecipient: MINT,
      amount: "1000000",
      deadlineUnixSec: 1_900_000_000
    }
    expect(decodeOk(EscrowCreateBody, create).feeBps).toBe(0)
    expect(pathsOf(EscrowResolveBody, { escrowNumericId: "42", creator: MINT, winnerIsCreator: "yes" })).toEqual(["winnerIsCreator"])
  })
})

describe("tool calls", () => {
  it("defaults args and checks the tool name", () => {
    expect(decodeOk(McpCallBody, { tool: "wallet.create" })).toEqual({ tool: "wallet.create", args: {} })
    expect(pathsOf(McpCallBody, { tool: "Drop Table", args: 3 })).toEqual(["args", "tool"])
  })
})
