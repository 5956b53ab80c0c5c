import { describe, expect, it } from "vitest"
import { deriveRiskTier } from "../../src/policy/riskTier.js"
import { decideWith } from "./fixtures.js"

describe("risk tier, in the spec's order", () => {
  it.each([
    { name: "hint wins over a critical type", input: { type: "flash_loan_bundle", riskTierHint: "low" as const }, tier: "low" },
    { name: "hint wins over a large amount", input: { type: "transfer_sol", amountLamports: 9_000_000_000n, riskTierHint: "medium" as const }, tier: "medium" },
    { name: "flash_loan_bundle", input: { type: "flash_loan_bundle" }, tier: "critical" },
    { name: "cpi_call", input: { type: "cpi_call" }, tier: "critical" },
    { name: "custom_instruction_bundle", input: { type: "custom_instruction_bundle" }, tier: "critical" },
    { name: "critical beats amount", input: { type: "cpi_call", amountLamports: 9_000_000_000n }, tier: "critical" },
    { name: "2 SOL exactly is not above", input: { type: "transfer_sol", amountLamports: 2_000_000_000n }, tier: "low" },
    { name: "2 SOL + 1 lamport", input: { type: "transfer_sol", amountLamports: 2_000_000_001n }, tier: "high" },
    { name: "high beats medium", input: { type: "swap", amountLamports: 2_000_000_001n }, tier: "high" },
    { name: "swap", input: { type: "swap" }, tier: "medium" },
    { name: "lend_borrow", input: { type: "lend_borrow" }, tier: "medium" },
    { name: "unstake contains stake", input: { type: "unstake" }, tier: "medium" },
    { name: "transfer_spl", input: { type: "transfer_spl" }, tier: "low" },
    { name: "query_balance", input: { type: "query_balance" }, tier: "low" }
  ])("$name -> $tier", ({ input, tier }) => {
    expect(deriveRiskTier(input)).toBe(tier)
  })

  it("the critical tier requires approval even with no rules", () => {
    const result = decideWith([], { type: "cpi_call" })
    expect(result).toMatchObject({ decision: "require_approval", riskTier: "critical" })
    expect(result.reasons).toContain("risk tier critical requires approval")
  })

  it("the critical tier never softens a deny", () => {
    expect(decideWith([{ type: "protocol_allowlist", protocols: [] }], { type: "cpi_call" }).decision).toBe("deny")
  })

  it("an engine hint of critical requires approval for any type", () => {
    expect(decideWith([], { riskTierHint: "critical" }).decision).toBe("require_approval")
  })
})
