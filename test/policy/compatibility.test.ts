import { describe, expect, it } from "vitest"
import { checkCompatibility } from "../../src/policy/compatibility.js"
import { ADDR_A, ADDR_B } from "./fixtures.js"

describe("checkCompatibility", () => {
  it("a clean rule set is compatible without warnings", () => {
    expect(
      checkCompatibility([
        { type: "spending_limit", maxLamportsPerTx: 1_000, requireApprovalAboveLamports: 500 },
        { type: "address_allowlist", addresses: [ADDR_A] },
        { type: "rate_limit", maxTx: 10, windowSeconds: 60 }
      ])
    ).toEqual({ compatible: true, warnings: [], errors: [] })
  })

  it("names the rule and field of every error", () => {
    const result = checkCompatibility([
      { type: "max_slippage", maxBps: 1 },
      { type: "rate_limit", maxTx: 1 },
      { type: "max_slippage", maxBps: 20_000 },
      { type: "teleport" }
    ])
    expect(result.compatible).toBe(false)
    expect(result.errors).toEqual([
      "rules[1].windowSeconds: is missing",
      "rules[2].maxBps: must be between 0 and 10000",
      'rules[3].type: unknown rule type "teleport"'
    ])
  })

  it("rejects a body whose rules are not an array", () => {
    expect(checkCompatibility({ type: "max_slippage" })).toMatchObject({ compatible: false, errors: ["rules: must be an array"] })
  })

  it.each([
    { name: "allowed and blocked address", rules: [{ type: "address_allowlist", addresses: [ADDR_A, ADDR_B] }, { type: "address_blocklist", addresses: [ADDR_B] }], warning: /both allowlisted \(rules\[0\]\) and blocklisted \(rules\[1\]\)/ },
    { name: "single-hour window", rules: [{ type: "time_window", startHourUtc: 5, endHourUtc: 5 }], warning: /single hour/ },
    { name: "disjoint windows", rules: [{ type: "time_window", startHourUtc: 1, endHourUtc: 3 }, { type: "time_window", startHourUtc: 4, endHourUtc: 6 }], warning: /share no hour/ },
    { name: "duplicate type", rules: [{ type: "max_slippage", maxBps: 1 }, { type: "max_slippage", maxBps: 2 }], warning: /duplicates rules\[0\]/ },
    { name: "empty allowlist", rules: [{ type: "token_allowlist", mints: [] }], warning: /list is empty/ },
    { name: "approval threshold above per-tx max", rules: [{ type: "spending_limit", maxLamportsPerTx: 5, requireApprovalAboveLamports: 5 }], warning: /approval is never asked/ },
    { name: "no-op spending limit", rules: [{ type: "spending_limit" }], warning: /no effect/ },
    { name: "protocol risk outside the allowlist", rules: [{ type: "protocol_allowlist", protocols: ["spl-token"] }, { type: "protocol_risk", protocol: "amm-one" }], warning: /never applies/ }
  ])("warns about $name but stays compatible", ({ rules, warning }) => {
    const result = checkCompatibility(rules)
    expect(result.compatible).toBe(true)
    expect(result.warnings.join("\n")).toMatch(warning)
  })

  it("two rate limits are not flagged as duplicates", () => {
    expect(checkCompatibility([{ type: "rate_limit", maxTx: 5, windowSeconds: 60 }, { type: "rate_limit", maxTx: 100, windowSeconds: 3600 }]).warnings).toEqual([])
  })
})
