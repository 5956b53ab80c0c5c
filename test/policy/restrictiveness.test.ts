import fc from "fast-check"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { PolicyRule } from "../../schemas/policy.js"
import { evaluatePolicies } from "../../src/policy/evaluate.js"
import { compareRuleSets } from "../../src/policy/restrictiveness.js"
import { evaluateRequest, evaluationState, rulesJson } from "./arbitraries.js"
import { ADDR_A, ADDR_B, ADDR_C, storedPolicy } from "./fixtures.js"

const rules = (...json: ReadonlyArray<unknown>) => json.map((r) => Schema.decodeUnknownSync(PolicyRule)(r))
const compare = (current: ReadonlyArray<unknown>, target: ReadonlyArray<unknown>) =>
  compareRuleSets(rules(...current), rules(...target))

describe("compareRuleSets", () => {
  it.each([
    { name: "identical", c: [{ type: "max_slippage", maxBps: 100 }], t: [{ type: "max_slippage", maxBps: 100 }], ok: true },
    { name: "lower slippage", c: [{ type: "max_slippage", maxBps: 100 }], t: [{ type: "max_slippage", maxBps: 50 }], ok: true },
    { name: "higher slippage", c: [{ type: "max_slippage", maxBps: 100 }], t: [{ type: "max_slippage", maxBps: 101 }], ok: false },
    { name: "removed rule", c: [{ type: "max_slippage", maxBps: 100 }], t: [], ok: false },
    { name: "added rule", c: [], t: [{ type: "max_slippage", maxBps: 100 }], ok: true },
    { name: "spending limit lowered", c: [{ type: "spending_limit", maxLamportsPerTx: 10 }], t: [{ type: "spending_limit", maxLamportsPerTx: 9, maxLamportsPerDay: 20 }], ok: true },
    { name: "spending limit dropped", c: [{ type: "spending_limit", maxLamportsPerTx: 10 }], t: [{ type: "spending_limit", maxLamportsPerDay: 20 }], ok: false },
    { name: "approval threshold raised", c: [{ type: "spending_limit", requireApprovalAboveLamports: 10 }], t: [{ type: "spending_limit", requireApprovalAboveLamports: 11 }], ok: false },
    { name: "allowlist subset", c: [{ type: "address_allowlist", addresses: [ADDR_A, ADDR_B] }], t: [{ type: "address_allowlist", addresses: [ADDR_A] }], ok: true },
    { name: "allowlist grows", c: [{ type: "address_allowlist", addresses: [ADDR_A] }], t: [{ type: "address_allowlist", addresses: [ADDR_A, ADDR_C] }], ok: false },
    { name: "blocklist grows", c: [{ type: "address_blocklist", addresses: [ADDR_A] }], t: [{ type: "address_blocklist", addresses: [ADDR_A, ADDR_B] }], ok: true },
    { name: "blocklist shrinks", c: [{ type: "address_blocklist", addresses: [ADDR_A, ADDR_B] }], t: [{ type: "address_blocklist", addresses: [ADDR_B] }], ok: false },
    { name: "rate fewer tx, longer window", c: [{ type: "rate_limit", maxTx: 10, windowSeconds: 60 }], t: [{ type: "rate_limit", maxTx: 5, windowSeconds: 120 }], ok: true },
    { name: "same ratio, longer window (bursts)", c: [{ type: "rate_limit", maxTx: 10, windowSeconds: 60 }], t: [{ type: "rate_limit", maxTx: 100, windowSeconds: 600 }], ok: false },
    { name: "rate shorter window", c: [{ type: "rate_limit", maxTx: 10, windowSeconds: 60 }], t: [{ type: "rate_limit", maxTx: 10, windowSeconds: 30 }], ok: false },
    { name: "time window contained in wrap-around", c: [{ type: "time_window", startHourUtc: 22, endHourUtc: 6 }], t: [{ type: "time_window", startHourUtc: 23, endHourUtc: 2 }], ok: true },
    { name: "time window widened", c: [{ type: "time_window", startHourUtc: 22, endHourUtc: 6 }], t: [{ type: "time_window", startHourUtc: 21, endHourUtc: 6 }], ok: false },
    { name: "protocol risk tightened", c: [{ type: "protocol_risk", protocol: "amm-one", maxSlippageBps: 100 }], t: [{ type: "protocol_risk", protocol: "amm-one", maxSlippageBps: 50, allowedPools: [ADDR_A] }], ok: true },
    { name: "protocol risk other protocol", c: [{ type: "protocol_risk", protocol: "amm-one", maxSlippageBps: 100 }], t: [{ type: "protocol_risk", protocol: "amm-two", maxSlippageBps: 50 }], ok: false },
    { name: "protocol risk pools unconfigured", c: [{ type: "protocol_risk", protocol: "amm-one", allowedPools: [ADDR_A] }], t: [{ type: "protocol_risk", protocol: "amm-one", allowedPools: [] }], ok: false },
    { name: "portfolio exposure raised", c: [{ type: "portfolio_risk", maxExposureBpsPerToken: 100 }], t: [{ type: "portfolio_risk", maxExposureBpsPerToken: 200 }], ok: false }
  ])("$name -> at least as restrictive: $ok", ({ c, t, ok }) => {
    const result = compare(c, t)
    expect(result.moreRestrictiveOrEqual).toBe(ok)
    expect(result.differences.length === 0).toBe(ok)
  })

  it("explains the difference", () => {
    expect(compare([{ type: "spending_limit", maxLamportsPerTx: 10 }], [{ type: "spending_limit", maxLamportsPerTx: 20 }]).differences).toEqual([
      "rules[0] spending_limit: maxLamportsPerTx raised from 10 to 20"
    ])
    expect(compare([{ type: "max_slippage", maxBps: 1 }], []).differences).toEqual(["rules[0] max_slippage: removed in the target"])
  })

  it("a rule set is at least as restrictive as itself", () => {
    fc.assert(
      fc.property(rulesJson, (json) => {
        const valid = json.flatMap((r) => { try { return rules(r) } catch { return [] } })
        expect(compareRuleSets(valid, valid).moreRestrictiveOrEqual).toBe(true)
      })
    )
  })

  it("soundness: when the target is at least as restrictive, its decision is never more lenient", () => {
    fc.assert(
      fc.property(rulesJson, rulesJson, fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }), evaluateRequest, evaluationState, (cJson, tJson, keep, req, state) => {
        const decode = (js: ReadonlyArray<unknown>) => js.flatMap((r) => { try { return rules(r) } catch { return [] } })
        const current = decode(cJson)
        // The target replaces some current rules by other random rules: sometimes tighter, often not.
        const target = decode([...tJson, ...cJson.filter((_, i) => keep[i])])
        if (!compareRuleSets(current, target).moreRestrictiveOrEqual) return
        const severity = { allow: 0, require_approval: 1, deny: 2 }
        const encode = (rs: typeof current) => rs.map((r) => Schema.encodeSync(PolicyRule)(r))
        const before = evaluatePolicies([storedPolicy(encode(current))], req, state).decision
        const after = evaluatePolicies([storedPolicy(encode(target))], req, state).decision
        expect(severity[after]).toBeGreaterThanOrEqual(severity[before])
      }),
      { numRuns: 3000 }
    )
  })
})
