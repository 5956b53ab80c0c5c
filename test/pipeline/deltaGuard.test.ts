import { describe, expect, it } from "vitest"
import {
  deltaGuardToWire,
  evaluateDeltaGuard,
  type DeltaGuardInput
} from "../../src/pipeline/deltaGuard.js"
import { expectedAmountLamports } from "../../src/protocols/typeFacts.js"

const base: DeltaGuardInput = {
  type: "transfer_sol",
  intent: { destination: "x", lamports: 1_000_000_000 },
  preBalanceLamports: 10_000_000_000n,
  postBalanceLamports: 10_000_000_000n - 1_000_000_000n - 5_000n,
  absoluteToleranceLamports: 10_000n,
  varianceBpsThreshold: 100
}
const run = (over: Partial<DeltaGuardInput>) => evaluateDeltaGuard({ ...base, ...over })

describe("expected amount", () => {
  it("takes lamports, else amountLamports, else amount", () => {
    expect(expectedAmountLamports({ lamports: 5, amountLamports: 6, amount: "7" })).toBe(5n)
    expect(expectedAmountLamports({ amountLamports: 6, amount: "7" })).toBe(6n)
    expect(expectedAmountLamports({ amount: "7" })).toBe(7n)
    expect(expectedAmountLamports({ lamports: null, amount: "7" })).toBe(7n)
  })
  it("is null when the chosen field is not a positive integer (no fall-through)", () => {
    expect(expectedAmountLamports({})).toBeNull()
    expect(expectedAmountLamports({ lamports: 0, amount: "7" })).toBeNull()
    expect(expectedAmountLamports({ lamports: -5 })).toBeNull()
    expect(expectedAmountLamports({ amount: "abc" })).toBeNull()
    expect(expectedAmountLamports({ amount: "1.5" })).toBeNull()
    expect(expectedAmountLamports({ lamports: Number.POSITIVE_INFINITY })).toBeNull()
    expect(expectedAmountLamports({ amount: "18446744073709551615" })).toBe(18446744073709551615n)
  })
})

describe("evaluateDeltaGuard", () => {
  it("passes an outflow whose fee is within the absolute tolerance", () => {
    const r = run({})
    expect(r).toEqual({
      ok: true,
      expectedLamportsDelta: -1_000_000_000n,
      observedLamportsDelta: -1_000_005_000n,
      varianceBps: 0
    })
  })

  it("signs every outflow type negative and every inflow type positive", () => {
    for (const type of ["transfer_sol", "stake", "lend_supply", "create_escrow"]) {
      expect(run({ type, intent: { amount: "100" }, postBalanceLamports: base.preBalanceLamports - 100n }).expectedLamportsDelta).toBe(-100n)
    }
    for (const type of ["unstake", "release_escrow", "refund_escrow"]) {
      const r = run({ type, intent: { amount: "100" }, postBalanceLamports: base.preBalanceLamports + 100n })
      expect(r.expectedLamportsDelta).toBe(100n)
      expect(r.ok).toBe(true)
    }
  })

  it("does not check other types", () => {
    const r = run({ type: "swap", postBalanceLamports: 0n })
    expect(r.ok).toBe(true)
    expect(r.expectedLamportsDelta).toBeNull()
    expect(r.varianceBps).toBeNull()
    expect(r.observedLamportsDelta).toBe(-10_000_000_000n)
    expect(r.reason).toMatch(/no delta check for type swap/)
  })

  it("does not check an intent without a positive amount", () => {
    const r = run({ intent: { lamports: 0 }, postBalanceLamports: 0n })
    expect(r.ok).toBe(true)
    expect(r.expectedLamportsDelta).toBeNull()
  })

  it("passes at exactly the tolerance even when the variance is large", () => {
    // 1,000 lamport transfer, 10,000 off: 100,000 bps, but inside the tolerance
    const r = run({ intent: { lamports: 1_000 }, postBalanceLamports: base.preBalanceLamports - 11_000n })
    expect(r.ok).toBe(true)
    expect(r.varianceBps).toBe(100_000)
  })

  it("beyond the tolerance, passes at exactly the threshold and fails one bps above", () => {
    // expected −1,000,000; diff 10,001 → 100.01 bps → rounds to 100 → ok at threshold 100
    const atThreshold = run({ intent: { lamports: 1_000_000 }, postBalanceLamports: base.preBalanceLamports - 1_010_001n })
    expect(atThreshold.ok).toBe(true)
    expect(atThreshold.varianceBps).toBe(100)
    // diff 10,050 → 100.5 bps → rounds half up to 101 → breach
    const above = run({ intent: { lamports: 1_000_000 }, postBalanceLamports: base.preBalanceLamports - 1_010_050n })
    expect(above.ok).toBe(false)
    expect(above.varianceBps).toBe(101)
    expect(above.reason).toMatch(/variance 101 bps exceeds threshold 100 bps/)
  })

  it("catches an inflow that did not arrive", () => {
    const r = run({ type: "refund_escrow", intent: { amount: "500000000" }, postBalanceLamports: base.preBalanceLamports })
    expect(r.ok).toBe(false)
    expect(r.expectedLamportsDelta).toBe(500_000_000n)
    expect(r.observedLamportsDelta).toBe(0n)
    expect(r.varianceBps).toBe(10_000)
  })

  it("catches a drain larger than the intent", () => {
    const r = run({ postBalanceLamports: 0n })
    expect(r.ok).toBe(false)
    expect(r.varianceBps).toBe(90_000)
  })

  it("threshold 0 with tolerance 0 demands an exact delta", () => {
    const exact = run({ intent: { lamports: 7 }, postBalanceLamports: base.preBalanceLamports - 7n, absoluteToleranceLamports: 0n, varianceBpsThreshold: 0 })
    expect(exact.ok).toBe(true)
    const off = run({ intent: { lamports: 7 }, postBalanceLamports: base.preBalanceLamports - 8n, absoluteToleranceLamports: 0n, varianceBpsThreshold: 0 })
    expect(off.ok).toBe(false)
  })

  it("converts to the wire shape with numbers", () => {
    expect(deltaGuardToWire(run({}))).toEqual({
      ok: true,
      expectedLamportsDelta: -1_000_000_000,
      observedLamportsDelta: -1_000_005_000,
      varianceBps: 0
    })
    expect(deltaGuardToWire(run({ type: "swap" })).reason).toMatch(/no delta check/)
  })
})
