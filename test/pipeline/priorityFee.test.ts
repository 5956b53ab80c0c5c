import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  DEFAULT_PRIORITY_FEE_CONFIG,
  percentileFee,
  priorityFeeMicroLamports,
  type PriorityFeeConfig
} from "../../src/pipeline/priorityFee.js"

const config = (over: Partial<PriorityFeeConfig>): PriorityFeeConfig => ({ ...DEFAULT_PRIORITY_FEE_CONFIG, ...over })
const entries = (fees: number[]) => fees.map((prioritizationFee, slot) => ({ slot, prioritizationFee }))

describe("percentileFee", () => {
  it("indexes floor(p/100 × (n−1)) of the ascending samples", () => {
    const fees = [50, 10, 40, 20, 30] // sorted 10 20 30 40 50, n−1 = 4
    expect(percentileFee(fees, 75)).toBe(40n) // floor(3.0) = 3
    expect(percentileFee(fees, 74)).toBe(30n) // floor(2.96) = 2
    expect(percentileFee(fees, 50)).toBe(30n)
    expect(percentileFee(fees, 1)).toBe(10n)
    expect(percentileFee(fees, 99)).toBe(40n) // floor(3.96) = 3: never the max unless p = 100
  })

  it("skips negative and non-integer samples", () => {
    expect(percentileFee([-5, 7, Number.NaN, 1.5, "x", "9"], 99)).toBe(7n) // usable: 7, 9
    expect(percentileFee([-1, -2], 75)).toBeNull()
    expect(percentileFee([], 75)).toBeNull()
  })

  it("keeps values past 2^53 exact when given as bigint or string", () => {
    const huge = 2n ** 64n - 1n
    expect(percentileFee([huge, "18446744073709551615", 1n], 99)).toBe(huge)
  })
})

describe("priorityFeeMicroLamports", () => {
  it("multiplies by multiplierBps/10000 rounding down", () => {
    // 100,001 × 1150 / 10000 = 115,001.15 → 115,001
    expect(priorityFeeMicroLamports(entries([100_001]))).toBe(115_001n)
    // 2,609 × 1.15 = 3,000.35 → 3,000
    expect(priorityFeeMicroLamports(entries([2_609]))).toBe(3_000n)
  })

  it("applies the formula literally for a configured 1150 bps (0.115x)", () => {
    expect(DEFAULT_PRIORITY_FEE_CONFIG.multiplierBps).toBe(11_500)
    expect(priorityFeeMicroLamports(entries([100_000]), config({ multiplierBps: 1_150 }))).toBe(11_500n)
  })

  it("uses the minimum when there are no fees or the result is zero", () => {
    expect(priorityFeeMicroLamports([])).toBe(2_000n)
    expect(priorityFeeMicroLamports(entries([0, 0, 0]))).toBe(2_000n)
    // 1 × 0.5 = 0.5 → 0 → not positive → minimum
    expect(priorityFeeMicroLamports(entries([1]), config({ multiplierBps: 5_000, minMicroLamports: 7n }))).toBe(7n)
  })

  it("clamps a small positive result up to the minimum", () => {
    expect(priorityFeeMicroLamports(entries([1_000]))).toBe(2_000n) // 1,150 < 2,000
  })

  it("clamps to the maximum", () => {
    // 173,913 × 1.15 = 199,999.95 → 199,999 (inside); 173,914 × 1.15 = 200,001.1 → 200,000
    expect(priorityFeeMicroLamports(entries([173_913]))).toBe(199_999n)
    expect(priorityFeeMicroLamports(entries([173_914]))).toBe(200_000n)
    expect(priorityFeeMicroLamports([2n ** 70n])).toBe(200_000n)
  })

  it("rejects unusable configuration", () => {
    expect(() => priorityFeeMicroLamports([], config({ percentile: 0 }))).toThrow(/PERCENTILE/)
    expect(() => priorityFeeMicroLamports([], config({ percentile: 100 }))).toThrow(/PERCENTILE/)
    expect(() => priorityFeeMicroLamports([], config({ multiplierBps: -1 }))).toThrow(/MULTIPLIER/)
    expect(() => priorityFeeMicroLamports([], config({ minMicroLamports: 10n, maxMicroLamports: 9n }))).toThrow(/bounds/)
  })

  it("always lands within [min, max] (property)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.bigInt({ min: -1_000n, max: 10n ** 12n })),
        fc.integer({ min: 1, max: 99 }),
        fc.integer({ min: 0, max: 50_000 }),
        (fees, percentile, multiplierBps) => {
          const fee = priorityFeeMicroLamports(fees, config({ percentile, multiplierBps }))
          return fee >= 2_000n && fee <= 200_000n
        }
      )
    )
  })
})
