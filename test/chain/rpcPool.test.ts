import type { ServerResponse } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RpcApplicationError, RpcUnavailableError } from "../../src/chain/rpcErrors.js"
import { RpcPool } from "../../src/chain/rpcPool.js"
import { freePort } from "../support/freePort.js"
import { closeJsonRpcServers, jsonAnswer, startJsonRpcServer } from "../support/jsonRpcServer.js"

type Handler = (body: { id: number; method: string; params: unknown[] }, res: ServerResponse) => void

const start = (handler: Handler): Promise<string> =>
  startJsonRpcServer((body, res) => handler(body as Parameters<Handler>[0], res))

/** A port that was just bound and released: connecting to it is refused. */
const refusedUrl = async (): Promise<string> => `http://127.0.0.1:${await freePort()}`

let healthy: string
let failing500: string
let slow: string
let unhealthyNode: string
let refused: string
let healthyCalls = 0

beforeAll(async () => {
  healthy = await start(({ id, method }, res) => {
    healthyCalls++
    if (method === "getHealth") return jsonAnswer(res, 200, { jsonrpc: "2.0", id, result: "ok" })
    if (method === "getSlot") return jsonAnswer(res, 200, { jsonrpc: "2.0", id, result: 42 })
    if (method === "sendTransaction") {
      return jsonAnswer(res, 200, {
        jsonrpc: "2.0",
        id,
        error: { code: -32002, message: "Transaction simulation failed: insufficient funds", data: { logs: ["x"] } }
      })
    }
    return jsonAnswer(res, 200, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })
  })
  failing500 = await start((_body, res) => jsonAnswer(res, 500, { error: "boom" }))
  slow = await start(({ id }, res) => {
    setTimeout(() => jsonAnswer(res, 200, { jsonrpc: "2.0", id, result: "late" }), 1_500)
  })
  unhealthyNode = await start(({ id }, res) =>
    jsonAnswer(res, 200, { jsonrpc: "2.0", id, error: { code: -32005, message: "Node is behind by 200 slots" } })
  )
  refused = await refusedUrl()
})

afterAll(closeJsonRpcServers)

describe("RpcPool", () => {
  it("cascades past a refused connection and an HTTP 500 to the healthy endpoint", async () => {
    const failovers: Array<[string, string]> = []
    const pool = new RpcPool([refused, failing500, healthy], { onFailover: (from, to) => failovers.push([from, to]) })
    await expect(pool.call<number>("getSlot")).resolves.toBe(42)
    expect(failovers).toEqual([
      [refused, failing500],
      [failing500, healthy]
    ])
    expect(pool.failoverCount).toBe(2)
    const [r, f, h] = pool.status()
    expect(r.score).toBe(0.7)
    expect(r.lastError).toMatch(/ECONNREFUSED/)
    expect(f.score).toBe(0.7)
    expect(f.lastError).toBe("HTTP 500")
    expect(h.successes).toBe(1)
    expect(h.score).toBe(1)
  })

  it("goes to the healthy endpoint first once it has the best score", async () => {
    const pool = new RpcPool([failing500, healthy])
    await pool.call("getSlot")
    expect(pool.ranked()[0].url).toBe(healthy)
    const before = healthyCalls
    await pool.call("getSlot")
    expect(pool.failoverCount).toBe(1) // the second call did not touch the failing endpoint
    expect(healthyCalls).toBe(before + 1)
  })

  it("times out a slow endpoint and moves on", async () => {
    const pool = new RpcPool([slow, healthy], { timeoutMs: 200 })
    await expect(pool.call<number>("getSlot")).resolves.toBe(42)
    expect(pool.status()[0].lastError).toBe("timeout after 200 ms")
  })

  it("treats a node-unhealthy answer (-32005) as a failure and moves on", async () => {
    const pool = new RpcPool([unhealthyNode, healthy])
    await expect(pool.call<number>("getSlot")).resolves.toBe(42)
    expect(pool.status()[0].lastError).toMatch(/node unhealthy/)
  })

  it("returns a JSON-RPC application error as a typed error without failing over", async () => {
    const failovers: string[] = []
    const pool = new RpcPool([healthy, failing500], { onFailover: (from) => failovers.push(from) })
    const error = await pool.call("sendTransaction", ["AAAA"]).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RpcApplicationError)
    const app = error as RpcApplicationError
    expect(app._tag).toBe("RpcApplicationError")
    expect(app.code).toBe(-32002)
    expect(app.rpcMessage).toMatch(/simulation failed/)
    expect(app.data).toEqual({ logs: ["x"] })
    expect(failovers).toEqual([])
    expect(pool.status()[0].failures).toBe(0)
  })

  it("fails with every attempt listed when no endpoint answers, after the configured retries", async () => {
    const pool = new RpcPool([refused, failing500], { maxRetries: 1, retryDelayMs: 10 })
    const error = await pool.call("getSlot").catch((e: unknown) => e)
    expect(error).toBeInstanceOf(RpcUnavailableError)
    const unavailable = error as RpcUnavailableError
    expect(unavailable.attempts).toHaveLength(4)
    expect(unavailable.message).toMatch(/getSlot failed on every RPC endpoint/)
  })

  it("probes getHealth on every endpoint", async () => {
    const pool = new RpcPool([healthy, failing500, unhealthyNode, refused])
    const statuses = await pool.probe()
    expect(statuses.map((s) => s.successes)).toEqual([1, 0, 0, 0])
    expect(statuses.map((s) => s.failures)).toEqual([0, 1, 1, 1])
    expect(statuses[2].lastError).toMatch(/-32005/)
    expect(statuses.every((s) => s.lastCheckedAt !== null)).toBe(true)
    expect(pool.ranked()[0].url).toBe(healthy)
  })

  it("reads CHAIN_RPC_URL then CHAIN_RPC_POOL_URLS without duplicates", () => {
    const pool = RpcPool.fromConfig(healthy, ` ${failing500}, ${healthy},,`)
    expect(pool.status().map((s) => s.url)).toEqual([healthy, failing500])
    expect(() => RpcPool.fromConfig(undefined, "")).toThrow(/at least one/)
    expect(() => new RpcPool(["ws://x"])).toThrow(/http/)
  })
})
