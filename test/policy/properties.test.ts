import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { Decision } from "../../schemas/policy.js"
import { evaluatePolicies } from "../../src/policy/evaluate.js"
import { evaluateRequest, evaluationState, ruleJson, rulesJson } from "./arbitraries.js"
import { storedPolicy } from "./fixtures.js"

const severity: Record<Decision, number> = { allow: 0, require_approval: 1, deny: 2 }

describe("monotonicity of the decision", () => {
  it("adding a rule never relaxes the decision", () => {
    let tightened = 0
    fc.assert(
      fc.property(rulesJson, ruleJson, fc.nat(6), evaluateRequest, evaluationState, (rules, extra, at, req, state) => {
        const withExtra = [...rules]
        withExtra.splice(Math.min(at, rules.length), 0, extra)
        const before = evaluatePolicies([storedPolicy(rules)], req, state).decision
        const after = evaluatePolicies([storedPolicy(withExtra)], req, state).decision
        expect(severity[after]).toBeGreaterThanOrEqual(severity[before])
        if (severity[after] > severity[before]) tightened++
      }),
      { numRuns: 500 }
    )
    // Not vacuous: some added rules did tighten the decision.
    expect(tightened).toBeGreaterThan(0)
  })

  it("adding an active policy never relaxes the decision", () => {
    fc.assert(
      fc.property(fc.array(rulesJson, { maxLength: 3 }), rulesJson, evaluateRequest, evaluationState, (sets, extra, req, state) => {
        const policies = sets.map((rules) => storedPolicy(rules))
        const before = evaluatePolicies(policies, req, state).decision
        const after = evaluatePolicies([...policies, storedPolicy(extra)], req, state).decision
        expect(severity[after]).toBeGreaterThanOrEqual(severity[before])
      }),
      { numRuns: 500 }
    )
  })

  it("deactivating a policy never turns an allow into a deny (nor tightens any decision)", () => {
    fc.assert(
      fc.property(fc.array(rulesJson, { minLength: 1, maxLength: 3 }), fc.nat(), evaluateRequest, evaluationState, (sets, pick, req, state) => {
        const off = pick % sets.length
        const before = evaluatePolicies(sets.map((rules) => storedPolicy(rules)), req, state).decision
        const afterPolicies = sets.map((rules, i) => storedPolicy(rules, { active: i !== off }))
        const after = evaluatePolicies(afterPolicies, req, state).decision
        expect(severity[after]).toBeLessThanOrEqual(severity[before])
      }),
      { numRuns: 500 }
    )
  })

  it("effects are applied only for allow, and only rate events for require_approval", () => {
    const seen: Record<Decision, number> = { allow: 0, require_approval: 0, deny: 0 }
    fc.assert(
      fc.property(rulesJson, evaluateRequest, evaluationState, (rules, req, state) => {
        const result = evaluatePolicies([storedPolicy(rules)], req, state)
        seen[result.decision]++
        if (result.decision === "deny") {
          expect(result.effects.addDailySpendLamports).toBe(0n)
          expect(result.effects.rateEvents).toEqual([])
        }
        if (result.decision === "require_approval") expect(result.effects.addDailySpendLamports).toBe(0n)
        if (result.decision !== "allow") expect(result.reasons.length).toBeGreaterThan(0)
      }),
      { numRuns: 300 }
    )
    // Every branch above was exercised by the generated cases.
    expect(seen.allow).toBeGreaterThan(0)
    expect(seen.require_approval).toBeGreaterThan(0)
    expect(seen.deny).toBeGreaterThan(0)
  })
})
