import { describe, expect, it } from "vitest"
import { ADDR_A, ADDR_B, SYSTEM_PROGRAM, TOKEN_PROGRAM, decideWith, decisionOf } from "./fixtures.js"

describe("max_slippage", () => {
  const rule = { type: "max_slippage", maxBps: 100 }
  it.each([
    { slippageBps: 0, expected: "allow" },
    { slippageBps: 100, expected: "allow" },
    { slippageBps: 101, expected: "deny" }
  ])("swap with $slippageBps bps -> $expected", ({ slippageBps, expected }) => {
    expect(decisionOf([rule], { type: "swap", protocol: "dex-aggregator", slippageBps })).toBe(expected)
  })
  it("a swap without slippage is denied; a transfer carries none and passes", () => {
    expect(decisionOf([rule], { type: "swap", protocol: "dex-aggregator" })).toBe("deny")
    expect(decisionOf([rule], { type: "transfer_sol" })).toBe("allow")
  })
})

describe("protocol_risk rule", () => {
  const rule = {
    type: "protocol_risk",
    protocol: "amm-one",
    maxSlippageBps: 50,
    maxPoolConcentrationBps: 2_500,
    allowedPools: [ADDR_A],
    allowedPrograms: [SYSTEM_PROGRAM],
    oracleDeviationBps: 200
  }
  const swap = { type: "swap", protocol: "amm-one", slippageBps: 50, amountLamports: 250n, programIds: [SYSTEM_PROGRAM] }
  const facts = { pool: ADDR_A, preBalanceLamports: 1_000n, oracleDeviationBps: 200 }

  it("applies only to its protocol", () => {
    expect(decisionOf([rule], { ...swap, protocol: "amm-two", slippageBps: 9_000 })).toBe("allow")
  })

  it.each([
    { name: "all within bounds (each at its boundary)", req: {}, tx: {}, expected: "allow" },
    { name: "slippage 51", req: { slippageBps: 51 }, tx: {}, expected: "deny" },
    { name: "pool not listed", req: {}, tx: { pool: ADDR_B }, expected: "deny" },
    { name: "pool unknown", req: {}, tx: { pool: undefined }, expected: "deny" },
    { name: "program not listed", req: { programIds: [SYSTEM_PROGRAM, TOKEN_PROGRAM] }, tx: {}, expected: "deny" },
    { name: "concentration 2501 bps", req: { amountLamports: 2_501n }, tx: { preBalanceLamports: 10_000n }, expected: "deny" },
    { name: "concentration 2500 bps", req: { amountLamports: 2_500n }, tx: { preBalanceLamports: 10_000n }, expected: "allow" },
    { name: "zero pre-balance", req: { amountLamports: 1n }, tx: { preBalanceLamports: 0n }, expected: "deny" },
    { name: "oracle deviation 201", req: {}, tx: { oracleDeviationBps: 201 }, expected: "require_approval" },
    { name: "no oracle price", req: {}, tx: { oracleDeviationBps: undefined }, expected: "allow" }
  ])("$name -> $expected", ({ req, tx, expected }) => {
    expect(decisionOf([rule], { ...swap, ...req }, { transaction: { ...facts, ...tx } })).toBe(expected)
  })

  it("fails closed without the pipeline's facts", () => {
    expect(decisionOf([rule], swap, { transaction: undefined })).toBe("deny")
  })
})

describe("portfolio_risk rule", () => {
  const rule = {
    type: "portfolio_risk",
    maxDrawdownLamports: 1_000,
    maxDailyLossLamports: 500,
    maxExposureBpsPerToken: 3_000,
    maxExposureBpsPerProtocol: 5_000
  }
  const metrics = {
    drawdownLamports: 1_000n,
    dailyLossLamports: 500n,
    tokenExposureBps: { USDC: 3_000 },
    protocolExposureBps: { "amm-one": 5_000 }
  }
  it.each([
    { name: "all at their limits", m: {}, expected: "allow" },
    { name: "drawdown 1001", m: { drawdownLamports: 1_001n }, expected: "deny" },
    { name: "daily loss 501", m: { dailyLossLamports: 501n }, expected: "deny" },
    { name: "token exposure 3001", m: { tokenExposureBps: { USDC: 3_001 } }, expected: "require_approval" },
    { name: "protocol exposure 5001", m: { protocolExposureBps: { "amm-one": 5_001 } }, expected: "require_approval" },
    { name: "exposure and drawdown", m: { drawdownLamports: 2_000n, tokenExposureBps: { USDC: 9_000 } }, expected: "deny" }
  ])("$name -> $expected", ({ m, expected }) => {
    expect(decisionOf([rule], {}, { portfolio: { ...metrics, ...m } })).toBe(expected)
  })

  it("fails closed without metrics; a rule with no limits needs none", () => {
    expect(decisionOf([rule], {}, { portfolio: undefined })).toBe("deny")
    expect(decisionOf([{ type: "portfolio_risk" }], {}, { portfolio: undefined })).toBe("allow")
  })

  it("names the token whose exposure is over the limit", () => {
    const result = decideWith([rule], {}, { portfolio: { ...metrics, tokenExposureBps: { USDC: 3_001, SOL: 10 } } })
    expect(result.reasons).toHaveLength(1)
    expect(result.reasons[0]).toMatch(/token USDC would be 3001 bps/)
  })
})
