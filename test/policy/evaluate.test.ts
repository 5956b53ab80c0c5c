import { describe, expect, it } from "vitest"
import { aggregateOutcomes } from "../../src/policy/aggregate.js"
import { CompiledRulesCache } from "../../src/policy/compileRules.js"
import { effectsAtApproval, evaluatePolicies } from "../../src/policy/evaluate.js"
import { requiredState } from "../../src/policy/requiredState.js"
import { ADDR_A, OTHER_WALLET, WALLET, decideWith, request, snapshot, storedPolicy } from "./fixtures.js"

const allowAll = { type: "protocol_allowlist", protocols: ["system-program"] }
const denyAll = { type: "protocol_allowlist", protocols: [] }
const approveAbove1 = { type: "spending_limit", requireApprovalAboveLamports: 1 }

describe("aggregation", () => {
  it.each([
    { outcomes: [], expected: "allow" },
    { outcomes: ["allow", "allow"], expected: "allow" },
    { outcomes: ["allow", "require_approval"], expected: "require_approval" },
    { outcomes: ["require_approval", "deny", "allow"], expected: "deny" },
    { outcomes: ["deny", "require_approval"], expected: "deny" }
  ] as const)("$outcomes -> $expected", ({ outcomes, expected }) => {
    const result = aggregateOutcomes(outcomes.map((decision, i) => ({ decision, reasons: decision === "allow" ? [] : [`r${i}`] })))
    expect(result.decision).toBe(expected)
  })

  it("keeps every reason, in order, across policies", () => {
    const result = evaluatePolicies(
      [storedPolicy([approveAbove1], { name: "first" }), storedPolicy([denyAll], { name: "second" })],
      request({ amountLamports: 5n }),
      snapshot()
    )
    expect(result.decision).toBe("deny")
    expect(result.reasons).toHaveLength(2)
    expect(result.reasons[0]).toMatch(/^policy "first" v1 rules\[0\]: spending_limit/)
    expect(result.reasons[1]).toMatch(/^policy "second" v1 rules\[0\]: protocol_allowlist/)
  })
})

describe("which policies take part", () => {
  it("ignores inactive policies and policies of other wallets", () => {
    const policies = [storedPolicy([denyAll], { active: false }), storedPolicy([denyAll], { walletId: OTHER_WALLET }), storedPolicy([allowAll])]
    expect(evaluatePolicies(policies, request(), snapshot()).decision).toBe("allow")
  })
})

describe("fail closed", () => {
  it.each([
    { name: "unknown rule type", rule: { type: "geo_fence", countries: ["x"] }, reason: /unknown rule type "geo_fence"/ },
    { name: "missing required field", rule: { type: "max_slippage" }, reason: /rules\[0\]\.maxBps: is missing/ },
    { name: "wrong field type", rule: { type: "rate_limit", maxTx: "10", windowSeconds: 60 }, reason: /rules\[0\]\.maxTx/ },
    { name: "out of range", rule: { type: "time_window", startHourUtc: 24, endHourUtc: 6 }, reason: /rules\[0\]\.startHourUtc: must be between 0 and 23/ },
    { name: "misspelt field", rule: { type: "spending_limit", maxLamportPerTx: 1 }, reason: /rules\[0\]\.maxLamportPerTx: unknown field; did you mean maxLamportsPerTx\?/ },
    { name: "not an object", rule: "spending_limit", reason: /rules\[0\]/ },
    { name: "null", rule: null, reason: /rules\[0\]/ },
    { name: "no type", rule: { maxBps: 1 }, reason: /rules\[0\]/ }
  ])("a stored rule with $name denies with a reason", ({ rule, reason }) => {
    const result = decideWith([rule])
    expect(result.decision).toBe("deny")
    expect(result.reasons.join("\n")).toMatch(reason)
  })

  it("stored rules that are not an array deny", () => {
    const result = evaluatePolicies([storedPolicy({ type: "max_slippage", maxBps: 1 })], request(), snapshot())
    expect(result.decision).toBe("deny")
  })

  it("one malformed rule denies even when the others allow", () => {
    expect(decideWith([allowAll, { type: "max_slippage", maxBps: -1 }, allowAll]).decision).toBe("deny")
  })
})

describe("effects", () => {
  const spending = { type: "spending_limit", maxLamportsPerDay: 10_000 }

  it("allow counts the amount on the request's UTC day", () => {
    const result = decideWith([spending], { amountLamports: 700n, timestamp: new Date("2025-03-10T23:59:59.999Z") })
    expect(result.effects).toMatchObject({ addDailySpendLamports: 700n, utcDay: "2025-03-10" })
    expect(result.effectsOnApproval).toBeNull()
  })

  it("one millisecond later is the next day's counter", () => {
    const timestamp = new Date("2025-03-11T00:00:00.000Z")
    const result = decideWith([spending], { amountLamports: 700n, timestamp })
    expect(result.effects.utcDay).toBe("2025-03-11")
    expect(requiredState([storedPolicy([spending])], request({ timestamp }), new Date()).utcDay).toBe("2025-03-11")
  })

  it("allow counts spend even without a daily limit", () => {
    expect(decideWith([], { amountLamports: 5n }).effects.addDailySpendLamports).toBe(5n)
  })

  it("require_approval records the rate event now and defers the spend to the approval day", () => {
    const rules = [approveAbove1, { type: "rate_limit", maxTx: 5, windowSeconds: 60 }]
    const result = decideWith(rules, { amountLamports: 50n }, { rateCounts: new Map([[60, 0]]) })
    expect(result.decision).toBe("require_approval")
    expect(result.effects.addDailySpendLamports).toBe(0n)
    expect(result.effects.rateEvents).toHaveLength(1)
    expect(result.effectsOnApproval).toEqual({ addDailySpendLamports: 50n })
    const approved = effectsAtApproval({ addDailySpendLamports: 50n }, new Date("2025-03-11T08:00:00Z"))
    expect(approved).toMatchObject({ addDailySpendLamports: 50n, utcDay: "2025-03-11", rateEvents: [] })
  })

  it("deny applies nothing", () => {
    const result = decideWith([denyAll, { type: "rate_limit", maxTx: 5, windowSeconds: 60 }], { amountLamports: 50n }, { rateCounts: new Map([[60, 0]]) })
    expect(result.effects).toMatchObject({ addDailySpendLamports: 0n, rateEvents: [] })
    expect(result.effectsOnApproval).toBeNull()
  })
})

describe("requiredState", () => {
  it("lists only what the active policies need", () => {
    const policies = [
      storedPolicy([{ type: "rate_limit", maxTx: 1, windowSeconds: 60 }, { type: "spending_limit", maxLamportsPerDay: 9 }]),
      storedPolicy([{ type: "rate_limit", maxTx: 1, windowSeconds: 60 }, { type: "spending_limit", maxLamportsPerDay: 5 }]),
      storedPolicy([{ type: "portfolio_risk", maxDrawdownLamports: 1 }], { active: false }),
      storedPolicy([{ type: "protocol_risk", protocol: "amm-one" }, { type: "address_blocklist", addresses: [ADDR_A] }])
    ]
    expect(requiredState(policies, request({ agentId: undefined }), new Date())).toMatchObject({
      rateKey: `${WALLET}:-`,
      rateWindowsSeconds: [60],
      dailySpend: true,
      portfolioMetrics: false,
      transactionFacts: false,
      minDailyLimitLamports: 5n
    })
  })
})

describe("CompiledRulesCache", () => {
  it("decodes a policy version once and reads active fresh", () => {
    const cache = new CompiledRulesCache(2)
    const stored = { id: "p", walletId: WALLET, name: "n", version: 1, active: true, rules: [denyAll] }
    const first = cache.compile(stored)
    const again = cache.compile({ ...stored, active: false })
    expect(again.rules).toBe(first.rules)
    expect(again.active).toBe(false)
    cache.compile({ ...stored, version: 2 })
    cache.compile({ ...stored, version: 3 })
    expect(cache.size).toBe(2)
  })
})
