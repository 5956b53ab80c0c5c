import { describe, expect, it } from "vitest"
import * as Schema from "effect/Schema"
import {
  Intent,
  IntentPayloads,
  isReadOnlyType,
  READ_ONLY_TYPES,
  INTENT_TYPES,
  TRANSACTION_TYPES,
  TransactionType
} from "../../schemas/intent.js"
import { decodeOk, issuesOf, pathsOf } from "./decode.js"

const WALLET_A = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
const WALLET_B = "So11111111111111111111111111111111111111112"
const MINT = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
const PROGRAM = "11111111111111111111111111111111"

describe("transaction types", () => {
  it("lists the 26 types of the spec, two of them read-only", () => {
    expect(TRANSACTION_TYPES).toHaveLength(26)
    expect(new Set(TRANSACTION_TYPES).size).toBe(26)
    // nft_mint is accepted beside them (the spec shows its payload; docs/decisions/nft.md), and the way out of
    // lending (docs/decisions/lending.md)
    expect(INTENT_TYPES).toEqual([...TRANSACTION_TYPES, "nft_mint", "lend_withdraw", "lend_repay", "burn_token"])
    expect(Object.keys(IntentPayloads).sort()).toEqual([...INTENT_TYPES].sort())
    expect(READ_ONLY_TYPES).toEqual(["query_balance", "query_positions"])
    expect(isReadOnlyType("query_balance")).toBe(true)
    expect(isReadOnlyType("transfer_sol")).toBe(false)
  })

  it("refuses an unknown type with a message naming what is expected", () => {
    const issues = issuesOf(TransactionType, "nft_burn")
    expect(issues).toHaveLength(1)
    expect(issues[0]?.message).toMatch(/^must be one of: transfer_sol, transfer_spl, swap/)
  })
})

describe("transfer_sol", () => {
  it("accepts lamports as a JSON integer or a decimal string, decoding to bigint", () => {
    expect(decodeOk(Intent, { type: "transfer_sol", intent: { destination: WALLET_A, lamports: 1_000_000 } })).toEqual({
      type: "transfer_sol",
      intent: { destination: WALLET_A, lamports: 1_000_000n }
    })
    const big = decodeOk(IntentPayloads.transfer_sol, { destination: WALLET_A, lamports: "18446744073709551615" })
    expect(big.lamports).toBe(18446744073709551615n)
  })

  it("names intent.lamports when it is zero, negative, fractional or missing", () => {
    for (const lamports of [0, -5, 1.5, "12abc", "0"]) {
      expect(pathsOf(Intent, { type: "transfer_sol", intent: { destination: WALLET_A, lamports } })).toEqual(["intent.lamports"])
    }
    expect(issuesOf(Intent, { type: "transfer_sol", intent: { destination: WALLET_A } })).toEqual([
      { path: "intent.lamports", message: "is missing" }
    ])
  })

  it("refuses an unsafe JSON number instead of losing precision", () => {
    const issues = issuesOf(IntentPayloads.transfer_sol, { destination: WALLET_A, lamports: 2 ** 60 })
    expect(issues).toEqual([
      { path: "lamports", message: "must be a non-negative integer up to 18446744073709551615 (u64): a decimal string, or a JSON number up to 9007199254740991" }
    ])
  })

  it("names intent.destination when it is not base58", () => {
    const issues = issuesOf(Intent, { type: "transfer_sol", intent: { destination: "not-an-address", lamports: 5 } })
    expect(issues).toEqual([{ path: "intent.destination", message: "must be a base58 address" }])
  })

  it("reports only the matching type's fields, not every union member", () => {
    const paths = pathsOf(Intent, { type: "transfer_sol", intent: {} })
    expect(paths.sort()).toEqual(["intent.destination", "intent.lamports"])
  })
})

describe("token and DeFi intents", () => {
  it("transfer_spl requires a positive amount string", () => {
    expect(decodeOk(IntentPayloads.transfer_spl, { destination: WALLET_A, mint: MINT, amount: "250" }).amount).toBe(250n)
    expect(pathsOf(IntentPayloads.transfer_spl, { destination: WALLET_A, mint: MINT, amount: "0" })).toEqual(["amount"])
  })

  it("swap accepts the amount as string or number and bounds slippage", () => {
    const base = { inputMint: MINT, outputMint: WALLET_B, slippageBps: 50 }
    expect(decodeOk(IntentPayloads.swap, { ...base, amount: 1000 }).amount).toBe(1000n)
    expect(decodeOk(IntentPayloads.swap, { ...base, amount: "1000", minimumOut: "990" }).minimumOut).toBe(990n)
    expect(pathsOf(IntentPayloads.swap, { ...base, amount: "1", slippageBps: 10_001 })).toEqual(["slippageBps"])
    expect(pathsOf(IntentPayloads.swap, { ...base, amount: "1", slippageBps: 2.5 })).toEqual(["slippageBps"])
  })

  it("create_mint defaults decimals to 9 and bounds them to 0-9", () => {
    expect(decodeOk(IntentPayloads.create_mint, {})).toEqual({ decimals: 9 })
    expect(decodeOk(IntentPayloads.create_mint, { decimals: 0, freezeAuthority: WALLET_A }).decimals).toBe(0)
    expect(issuesOf(IntentPayloads.create_mint, { decimals: 10 })).toEqual([{ path: "decimals", message: "must be between 0 and 9" }])
  })

  it("mint_token needs a mint and a positive amount; destination is optional", () => {
    expect(decodeOk(IntentPayloads.mint_token, { mint: MINT, amount: "5" })).toEqual({ mint: MINT, amount: 5n })
    expect(pathsOf(IntentPayloads.mint_token, { amount: "0" }).sort()).toEqual(["amount", "mint"])
  })

  it("query intents take no required fields", () => {
    expect(decodeOk(Intent, { type: "query_balance", intent: {} })).toEqual({ type: "query_balance", intent: {} })
    expect(decodeOk(Intent, { type: "query_positions", intent: {} })).toEqual({ type: "query_positions", intent: {} })
  })
})

describe("escrow intents", () => {
  const parties = { counterparty: WALLET_A, creator: WALLET_B, arbiter: WALLET_A, feeRecipient: WALLET_B }

  it("create_escrow keeps the u64 id as a string and defaults feeBps to 0", () => {
    const decoded = decodeOk(IntentPayloads.create_escrow, {
      escrowNumericId: "18446744073709551615",
      ...parties,
      amount: "1000000",
      deadlineUnixSec: 1_900_000_000
    })
    expect(decoded.escrowNumericId).toBe("18446744073709551615")
    expect(decoded.amount).toBe(1_000_000n)
    expect(decoded.feeBps).toBe(0)
  })

  it("refuses an escrow id beyond u64 and a fractional deadline", () => {
    const issues = issuesOf(IntentPayloads.create_escrow, {
      escrowNumericId: "18446744073709551616",
      ...parties,
      amount: "1",
      deadlineUnixSec: 1.5
    })
    expect(issues.map((issue) => issue.path).sort()).toEqual(["deadlineUnixSec", "escrowNumericId"])
    expect(issues.find((issue) => issue.path === "escrowNumericId")?.message).toBe("must be a u64 decimal string")
  })

  it("resolve_dispute needs decision release or refund", () => {
    const input = { escrowNumericId: "7", creator: WALLET_B, counterparty: WALLET_A, decision: "split" }
    expect(issuesOf(IntentPayloads.resolve_dispute, input)).toEqual([{ path: "decision", message: "must be one of: release, refund" }])
  })

  it("create_milestone_escrow holds 1-8 milestones, each positive", () => {
    const body = { escrowNumericId: "3", ...parties, deadlineUnixSec: 1_900_000_000 }
    const decoded = decodeOk(IntentPayloads.create_milestone_escrow, {
      ...body,
      milestones: [{ amount: "100" }, { amount: 200, description: "design" }]
    })
    expect(decoded.milestones.map((milestone) => milestone.amount)).toEqual([100n, 200n])
    expect(pathsOf(IntentPayloads.create_milestone_escrow, { ...body, milestones: [] })).toEqual(["milestones"])
    const nine = Array.from({ length: 9 }, () => ({ amount: "1" }))
    expect(pathsOf(IntentPayloads.create_milestone_escrow, { ...body, milestones: nine })).toEqual(["milestones"])
    expect(pathsOf(IntentPayloads.create_milestone_escrow, { ...body, milestones: [{ amount: "0" }] })).toEqual([
      "milestones.0.amount"
    ])
  })

  it("release_milestone names a milestone index 0-7", () => {
    const body = { escrowNumericId: "3", creator: WALLET_B, counterparty: WALLET_A, feeRecipient: WALLET_B }
    expect(decodeOk(IntentPayloads.release_milestone, { ...body, milestoneIndex: 0 }).milestoneIndex).toBe(0)
    expect(pathsOf(IntentPayloads.release_milestone, { ...body, milestoneIndex: -1 })).toEqual(["milestoneIndex"])
  })
})

describe("instruction-level intents", () => {
  const instruction = {
    programId: PROGRAM,
    accounts: [{ pubkey: WALLET_A, isSigner: true, isWritable: true }],
    data: "AQIDBA=="
  }

  it("cpi_call and custom_instruction_bundle decode base64 instructions", () => {
    expect(decodeOk(IntentPayloads.cpi_call, instruction)).toEqual(instruction)
    expect(decodeOk(IntentPayloads.custom_instruction_bundle, { instructions: [instruction] }).instructions).toHaveLength(1)
  })

  it("names the bad account flag and bad data inside a bundle", () => {
    const bad = { ...instruction, accounts: [{ pubkey: WALLET_A, isSigner: "yes", isWritable: true }], data: "***" }
    expect(pathsOf(IntentPayloads.custom_instruction_bundle, { instructions: [bad] }).sort()).toEqual([
      "instructions.0.accounts.0.isSigner",
      "instructions.0.data"
    ])
    expect(pathsOf(IntentPayloads.custom_instruction_bundle, { instructions: [] })).toEqual(["instructions"])
  })

  it("flash_loan_bundle needs a mint, a positive amount and instructions", () => {
    expect(decodeOk(IntentPayloads.flash_loan_bundle, { mint: MINT, amount: "10", instructions: [instruction] }).amount).toBe(10n)
    expect(pathsOf(IntentPayloads.flash_loan_bundle, { mint: MINT, amount: "10" })).toEqual(["instructions"])
  })

  it("x402_pay needs an http(s) url and a positive maxAmount; method, headers, body and asset are optional", () => {
    const ok = decodeOk(IntentPayloads.x402_pay, { url: "https://api.example.com/report", maxAmount: "5000", asset: MINT })
    expect(ok.maxAmount).toBe(5000n)
    expect(issuesOf(IntentPayloads.x402_pay, { url: "ftp://x", maxAmount: 5000 })).toEqual([
      { path: "url", message: "must be an http(s) URL" }
    ])
    expect(pathsOf(IntentPayloads.x402_pay, { url: "https://a.example/x", maxAmount: "0" })).toEqual(["maxAmount"])
    expect(pathsOf(IntentPayloads.x402_pay, { url: "https://a.example/x", maxAmount: "1", method: "TRACE" })).toEqual(["method"])
    expect(pathsOf(IntentPayloads.x402_pay, { url: "https://a.example/x", maxAmount: "1", headers: { "x-a": "b\r\nc: d" } })[0]).toMatch(/^headers/)
  })
})

describe("treasury and paper intents", () => {
  const agentA = "5f0c6c1e-8f4b-4c1e-9a57-1f7d3c2b9a10"
  const agentB = "0b8e2c6a-3d7f-4a9b-8c1d-2e3f4a5b6c7d"

  it("treasury intents take agent UUIDs and positive lamports", () => {
    expect(decodeOk(IntentPayloads.treasury_allocate, { targetAgentId: agentA, lamports: "100" }).lamports).toBe(100n)
    expect(pathsOf(IntentPayloads.treasury_rebalance, { sourceAgentId: "x", targetAgentId: agentB, lamports: 0 }).sort()).toEqual([
      "lamports",
      "sourceAgentId"
    ])
  })

  it("paper_trade decodes the inner intent by its own type", () => {
    const decoded = decodeOk(Intent, {
      type: "paper_trade",
      intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: WALLET_A, lamports: "42" } }
    })
    expect(decoded).toEqual({
      type: "paper_trade",
      intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: WALLET_A, lamports: 42n } }
    })
    expect(
      pathsOf(Intent, {
        type: "paper_trade",
        intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: WALLET_A, lamports: 0 } }
      })
    ).toEqual(["intent.intent.lamports"])
  })

  it("paper_trade refuses an unknown protocol and a nested paper trade", () => {
    const inner = { type: "query_balance", protocol: "moon-dex", intent: {} }
    expect(pathsOf(IntentPayloads.paper_trade, inner)).toEqual(["protocol"])
    expect(issuesOf(IntentPayloads.paper_trade, inner)[0]?.message).toMatch(/^must be one of: system-program, spl-token/)
    const nested = { type: "paper_trade", protocol: "system-program", intent: {} }
    expect(pathsOf(IntentPayloads.paper_trade, nested)).toEqual(["type"])
  })
})

describe("encoding back to the wire", () => {
  it("writes amounts as decimal strings where the spec shows strings", () => {
    const decoded = decodeOk(IntentPayloads.swap, { inputMint: MINT, outputMint: WALLET_B, amount: 7, slippageBps: 10 })
    expect(Schema.encodeSync(IntentPayloads.swap)(decoded)).toEqual({ inputMint: MINT, outputMint: WALLET_B, amount: "7", slippageBps: 10 })
  })
})
