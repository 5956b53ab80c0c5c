import { describe, expect, it } from "vitest"
import {
  initialEndpointStatus,
  latencyPenalty,
  rankEndpoints,
  recordFailure,
  recordSuccess
} from "../../src/chain/rpcScoring.js"
import { redactRpcUrl } from "../../src/chain/rpcUrl.js"

const at = new Date("2025-01-01T00:00:00.000Z")

describe("latencyPenalty", () => {
  it.each([
    [0, 0],
    [200, 0],
    [200.5, 0.04],
    [201, 0.04],
    [500, 0.04],
    [501, 0.08],
    [1000, 0.08],
    [1001, 0.12],
    [60_000, 0.12]
  ])("%d ms → %d", (ms, penalty) => {
    expect(latencyPenalty(ms)).toBe(penalty)
  })
})

describe("score updates", () => {
  it("starts at 1.0 with empty counters", () => {
    expect(initialEndpointStatus("http://a")).toEqual({
      url: "http://a",
      score: 1,
      successes: 0,
      failures: 0,
      avgLatencyMs: 0,
      failStreak: 0,
      lastCheckedAt: null
    })
  })

  it("adds 0.06 minus the penalty on success (capped at 1.0)", () => {
    const low = { ...initialEndpointStatus("http://a"), score: 0.5 }
    expect(recordSuccess(low, 100, at).score).toBe(0.56)
    expect(recordSuccess(low, 300, at).score).toBe(0.52)
    expect(recordSuccess(low, 700, at).score).toBe(0.48)
    expect(recordSuccess(low, 2_000, at).score).toBe(0.44)
    expect(recordSuccess(initialEndpointStatus("http://a"), 100, at).score).toBe(1)
    expect(recordSuccess(initialEndpointStatus("http://a"), 2_000, at).score).toBe(0.94)
  })

  it("multiplies by 0.7 on failure down to the 0.05 floor", () => {
    let s = initialEndpointStatus("http://a")
    const scores: number[] = []
    for (let i = 0; i < 10; i++) {
      s = recordFailure(s, "HTTP 500", at)
      scores.push(s.score)
    }
    expect(scores.slice(0, 4)).toEqual([0.7, 0.49, 0.343, 0.2401])
    expect(scores.at(-1)).toBe(0.05)
    expect(s.failStreak).toBe(10)
    expect(s.failures).toBe(10)
    expect(s.lastError).toBe("HTTP 500")
    expect(s.lastCheckedAt).toBe(at.toISOString())
  })

  it("a success resets the fail streak, clears the error and averages latency", () => {
    let s = recordFailure(initialEndpointStatus("http://a"), "timeout", at)
    s = recordSuccess(s, 100, at)
    expect(s.failStreak).toBe(0)
    expect(s.lastError).toBeUndefined()
    expect(s.avgLatencyMs).toBe(100)
    s = recordSuccess(s, 600, at) // 100 + 0.2 × 500
    expect(s.avgLatencyMs).toBe(200)
    expect(s.successes).toBe(2)
    expect(s.failures).toBe(1)
  })
})

describe("rankEndpoints", () => {
  it("orders by score, then by lower average latency, then keeps the given order", () => {
    const ranked = rankEndpoints([
      { url: "a", score: 0.7, avgLatencyMs: 10 },
      { url: "b", score: 1, avgLatencyMs: 300 },
      { url: "c", score: 1, avgLatencyMs: 50 },
      { url: "d", score: 1, avgLatencyMs: 50 }
    ])
    expect(ranked.map((r) => r.url)).toEqual(["c", "d", "b", "a"])
  })
})

describe("redactRpcUrl", () => {
  it("hides keys in the query, userinfo and long path segments", () => {
    expect(redactRpcUrl("https://rpc.example.com/?api-key=secret")).toBe("https://rpc.example.com?api-key=***")
    expect(redactRpcUrl("https://u:p@rpc.example.com/v2/abcdefghijklmnopqrstuvwxyz123")).toBe("https://***@rpc.example.com/v2/***")
    expect(redactRpcUrl("http://127.0.0.1:8899")).toBe("http://127.0.0.1:8899")
  })
})
