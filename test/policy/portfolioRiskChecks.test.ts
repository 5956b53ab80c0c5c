import { describe, expect, it } from "vitest"
import type { PortfolioMetrics } from "../../src/policy/evaluationState.js"
import { portfolioRiskChecks } from "../../src/policy/portfolioRiskChecks.js"

const controls = { maxDrawdownLamports: 100n, maxDailyLossLamports: 50n, maxExposureBpsPerToken: 2_000, maxExposureBpsPerProtocol: 4_000 }
const calm: PortfolioMetrics = { drawdownLamports: 100n, dailyLossLamports: 50n, tokenExposureBps: { SOL: 2_000 }, protocolExposureBps: { "amm-one": 4_000 } }

describe("portfolio risk checks", () => {
  it.each([
    { name: "at every limit", m: {}, decision: "allow" },
    { name: "drawdown over", m: { drawdownLamports: 101n }, decision: "deny" },
    { name: "daily loss over", m: { dailyLossLamports: 51n }, decision: "deny" },
    { name: "token exposure over", m: { tokenExposureBps: { SOL: 2_001 } }, decision: "require_approval" },
    { name: "protocol exposure over", m: { protocolExposureBps: { "amm-one": 4_001 } }, decision: "require_approval" }
  ] as const)("$name -> $decision", ({ m, decision }) => {
    expect(portfolioRiskChecks(controls, { ...calm, ...m }).decision).toBe(decision)
  })

  it("reports in order: drawdown, daily loss, token, protocol", () => {
    const result = portfolioRiskChecks(controls, {
      drawdownLamports: 999n,
      dailyLossLamports: 999n,
      tokenExposureBps: { SOL: 9_999 },
      protocolExposureBps: { "amm-one": 9_999 }
    })
    expect(result.decision).toBe("deny")
    expect(result.reasons.map((r) => r.match(/drawdown|daily loss|token|protocol/)?.[0])).toEqual(["drawdown", "daily loss", "token", "protocol"])
  })

  it("accepts the wallet's controls record as limits, and fails closed without metrics", () => {
    expect(portfolioRiskChecks(controls, undefined).decision).toBe("deny")
    expect(portfolioRiskChecks({}, undefined).decision).toBe("allow")
  })
})
