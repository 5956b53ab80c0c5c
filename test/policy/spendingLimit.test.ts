import { describe, expect, it } from "vitest"
import { decideWith, decisionOf } from "./fixtures.js"

const limit = { type: "spending_limit", maxLamportsPerTx: 1_000, maxLamportsPerDay: 5_000, requireApprovalAboveLamports: 500 }

describe("spending_limit", () => {
  it.each([
    { amount: 0n, expected: "allow" },
    { amount: 499n, expected: "allow" },
    { amount: 500n, expected: "allow" }, // equality is not "above": no approval
    { amount: 501n, expected: "require_approval" },
    { amount: 999n, expected: "require_approval" },
    { amount: 1_000n, expected: "require_approval" }, // at the per-tx max: allowed by the max, approval by threshold
    { amount: 1_001n, expected: "deny" }
  ])("per transaction: $amount lamports -> $expected", ({ amount, expected }) => {
    expect(decisionOf([limit], { amountLamports: amount })).toBe(expected)
  })

  it.each([
    { spent: 0n, amount: 400n, expected: "allow" },
    { spent: 4_600n, amount: 400n, expected: "allow" }, // spent + amount == daily max
    { spent: 4_601n, amount: 400n, expected: "deny" },
    { spent: 5_000n, amount: 0n, expected: "allow" },
    { spent: 5_000n, amount: 1n, expected: "deny" }
  ])("daily: spent $spent + $amount -> $expected", ({ spent, amount, expected }) => {
    expect(decisionOf([limit], { amountLamports: amount }, { dailySpentLamports: spent })).toBe(expected)
  })

  it("names the limit that was exceeded", () => {
    const result = decideWith([limit], { amountLamports: 1_001n }, { dailySpentLamports: 4_500n })
    expect(result.reasons.join("\n")).toMatch(/exceeds maxLamportsPerTx 1000/)
    expect(result.reasons.join("\n")).toMatch(/exceeds maxLamportsPerDay 5000/)
  })

  it("an omitted field skips its check", () => {
    expect(decisionOf([{ type: "spending_limit", maxLamportsPerTx: 10 }], { amountLamports: 10n }, { dailySpentLamports: undefined })).toBe("allow")
    expect(decisionOf([{ type: "spending_limit" }], {})).toBe("allow")
  })

  it("fails closed without an amount or without today's spend", () => {
    expect(decisionOf([limit], {})).toBe("deny")
    expect(decisionOf([{ type: "spending_limit", maxLamportsPerDay: 10 }], { amountLamports: 1n }, { dailySpentLamports: undefined })).toBe("deny")
  })

  it("accepts decimal strings beyond 2^53 and compares exactly", () => {
    const big = { type: "spending_limit", maxLamportsPerTx: "9007199254740993" }
    expect(decisionOf([big], { amountLamports: 9_007_199_254_740_993n })).toBe("allow")
    expect(decisionOf([big], { amountLamports: 9_007_199_254_740_994n })).toBe("deny")
  })
})
