import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { Autonomy } from "../../../schemas/agent.js"
import {
  actionIdempotencyKey,
  isEligible,
  nextEligibleAt,
  planTick,
  type RunState,
  tickIntervalMs
} from "../../../src/agents/runtime/planning.js"

const autonomy = (input: unknown) => Schema.decodeUnknownSync(Autonomy)(input)
const metrics = { tick: 1, balanceLamports: 5_000_000_000n, knownWalletsCount: 1 }
const none = new Map<string, RunState>()

const config = autonomy({
  enabled: true,
  maxActionsPerHour: 10,
  steps: [
    { id: "pay", type: "transfer_sol", protocol: "system-program", intent: { lamports: 1 }, cooldownSeconds: 10, maxRuns: 3 },
    { id: "look", type: "query_balance", protocol: "system-program", paperOnly: true, gasless: true }
  ],
  rules: [
    { id: "rich", when: [{ metric: "balance_lamports", op: "gt", value: 4_000_000_000 }], then: { type: "transfer_sol", protocol: "system-program" }, maxRuns: 1 }
  ]
})

describe("planTick", () => {
  it("plans eligible steps in order, then rules whose conditions hold", () => {
    const plan = planTick({ autonomy: config, metrics, steps: none, rules: none, actionsLastHour: 0, nowMs: 0 })
    expect(plan.map((a) => [a.source, a.sourceId, a.paper, a.gasless])).toEqual([
      ["step", "pay", false, false],
      ["step", "look", true, true],
      ["rule", "rich", false, false]
    ])
  })

  it("skips a rule whose condition fails, and everything when autonomy is disabled", () => {
    const poor = { ...metrics, balanceLamports: 4_000_000_000n }
    expect(planTick({ autonomy: config, metrics: poor, steps: none, rules: none, actionsLastHour: 0, nowMs: 0 }).map((a) => a.sourceId)).toEqual(["pay", "look"])
    expect(planTick({ autonomy: { ...config, enabled: false }, metrics, steps: none, rules: none, actionsLastHour: 0, nowMs: 0 })).toEqual([])
  })

  it("respects cooldown and maxRuns", () => {
    const cooling = new Map([["pay", { runs: 1, lastRunAt: 0 }]])
    const ids = (steps: Map<string, RunState>, nowMs: number) =>
      planTick({ autonomy: config, metrics, steps, rules: new Map([["rich", { runs: 1, lastRunAt: 0 }]]), actionsLastHour: 0, nowMs }).map((a) => a.sourceId)
    expect(ids(cooling, 9_999)).toEqual(["look"])
    expect(ids(cooling, 10_000)).toEqual(["pay", "look"])
    expect(ids(new Map([["pay", { runs: 3, lastRunAt: 0 }]]), 1_000_000)).toEqual(["look"])
  })

  it("makes everything paper in paper mode and cuts to maxActionsPerHour", () => {
    const paper = planTick({ autonomy: { ...config, mode: "paper" }, metrics, steps: none, rules: none, actionsLastHour: 0, nowMs: 0 })
    expect(paper.every((a) => a.paper)).toBe(true)
    expect(planTick({ autonomy: config, metrics, steps: none, rules: none, actionsLastHour: 8, nowMs: 0 })).toHaveLength(2)
    expect(planTick({ autonomy: config, metrics, steps: none, rules: none, actionsLastHour: 12, nowMs: 0 })).toHaveLength(0)
  })
})

describe("run limits and timing", () => {
  it("knows when a step may run again", () => {
    const limits = { maxRuns: 2, cooldownSeconds: 30 }
    expect(nextEligibleAt(limits, { runs: 0, lastRunAt: null }, 500)).toBe(500)
    expect(nextEligibleAt(limits, { runs: 1, lastRunAt: 1_000 }, 500)).toBe(31_000)
    expect(nextEligibleAt(limits, { runs: 1, lastRunAt: 1_000 }, 40_000)).toBe(40_000)
    expect(nextEligibleAt(limits, { runs: 2, lastRunAt: 1_000 }, 500)).toBeNull()
    expect(isEligible(limits, { runs: 1, lastRunAt: 1_000 }, 31_000)).toBe(true)
  })

  it("bounds the cadence below by the loop interval", () => {
    expect(tickIntervalMs(10, 5_000)).toBe(10_000)
    expect(tickIntervalMs(1, 5_000)).toBe(5_000)
  })

  it("derives one idempotency key per run, within the key's 128 characters", () => {
    const agentId = "11111111-2222-3333-4444-555555555555"
    const key = actionIdempotencyKey(agentId, "step", "s".repeat(64), 1_000_000)
    expect(key.length).toBeLessThanOrEqual(128)
    expect(actionIdempotencyKey(agentId, "step", "pay", 2)).toBe(actionIdempotencyKey(agentId, "step", "pay", 2))
    expect(actionIdempotencyKey(agentId, "step", "pay", 2)).not.toBe(actionIdempotencyKey(agentId, "rule", "pay", 2))
  })
})
