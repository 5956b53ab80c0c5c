import { describe, expect, it } from "vitest"
import { AGENT, WALLET, decideWith, decisionOf } from "./fixtures.js"

const rule = { type: "rate_limit", maxTx: 3, windowSeconds: 60 }

describe("rate_limit", () => {
  it.each([
    { count: 0, expected: "allow" },
    { count: 2, expected: "allow" },
    { count: 3, expected: "deny" }, // at maxTx
    { count: 4, expected: "deny" }
  ])("$count events in the window -> $expected", ({ count, expected }) => {
    expect(decisionOf([rule], {}, { rateCounts: new Map([[60, count]]) })).toBe(expected)
  })

  it("maxTx 0 denies everything", () => {
    expect(decisionOf([{ ...rule, maxTx: 0 }], {}, { rateCounts: new Map([[60, 0]]) })).toBe("deny")
  })

  it("fails closed when the store did not supply the window's count", () => {
    expect(decisionOf([rule], {}, { rateCounts: new Map([[3600, 0]]) })).toBe("deny")
    expect(decisionOf([rule], {}, { rateCounts: undefined })).toBe("deny")
  })

  it("records one event per distinct window, keyed walletId:agentId, on allow", () => {
    const rules = [rule, { type: "rate_limit", maxTx: 100, windowSeconds: 3600 }, { type: "rate_limit", maxTx: 2, windowSeconds: 60 }]
    const counts = new Map([[60, 0], [3600, 0]])
    const withAgent = decideWith(rules, { agentId: AGENT }, { rateCounts: counts })
    expect(withAgent.effects.rateEvents).toEqual([
      { key: `${WALLET}:${AGENT}`, windowSeconds: 60 },
      { key: `${WALLET}:${AGENT}`, windowSeconds: 3600 }
    ])
    const withoutAgent = decideWith([rule], {}, { rateCounts: counts })
    expect(withoutAgent.effects.rateEvents).toEqual([{ key: `${WALLET}:-`, windowSeconds: 60 }])
  })

  it("records nothing on deny", () => {
    const result = decideWith([rule], {}, { rateCounts: new Map([[60, 3]]) })
    expect(result.effects.rateEvents).toEqual([])
    expect(result.effects.addDailySpendLamports).toBe(0n)
  })
})
