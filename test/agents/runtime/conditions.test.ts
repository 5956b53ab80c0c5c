import { describe, expect, it } from "vitest"
import type { Condition } from "../../../schemas/agent.js"
import { allConditionsHold, conditionHolds, type TickMetrics } from "../../../src/agents/runtime/conditions.js"

const metrics: TickMetrics = { tick: 5, balanceLamports: 2_000_000_000n, knownWalletsCount: 2 }
const holds = (metric: Condition["metric"], op: Condition["op"], value: number) => conditionHolds({ metric, op, value }, metrics)

describe("conditions", () => {
  it("applies each operator", () => {
    expect([holds("tick", "gt", 4), holds("tick", "gt", 5)]).toEqual([true, false])
    expect([holds("tick", "gte", 5), holds("tick", "gte", 6)]).toEqual([true, false])
    expect([holds("tick", "lt", 6), holds("tick", "lt", 5)]).toEqual([true, false])
    expect([holds("tick", "lte", 5), holds("tick", "lte", 4)]).toEqual([true, false])
    expect([holds("tick", "eq", 5), holds("tick", "eq", 5.5)]).toEqual([true, false])
  })

  it("compares lamports exactly, also past 2^53", () => {
    const big: TickMetrics = { ...metrics, balanceLamports: 9_007_199_254_740_993n }
    expect(conditionHolds({ metric: "balance_lamports", op: "gt", value: 9_007_199_254_740_992 }, big)).toBe(true)
    expect(holds("balance_lamports", "gte", 2_000_000_000)).toBe(true)
    expect(holds("balance_lamports", "gt", 2_000_000_000)).toBe(false)
    expect(holds("balance_lamports", "lt", 1_999_999_999.5)).toBe(false)
    expect(holds("known_wallets_count", "eq", 2)).toBe(true)
  })

  it("needs every condition of a rule", () => {
    const when: Array<Condition> = [
      { metric: "tick", op: "gte", value: 3 },
      { metric: "balance_lamports", op: "gt", value: 1_000_000_000 }
    ]
    expect(allConditionsHold(when, metrics)).toBe(true)
    expect(allConditionsHold(when, { ...metrics, tick: 2 })).toBe(false)
    expect(allConditionsHold([], metrics)).toBe(false)
  })
})
