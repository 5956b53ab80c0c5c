/**
 * RpcPool's JSON-RPC batches: calls made in the same event-loop turn go as one HTTP request, each call
 * keeps its own outcome, and every way a batch can go wrong ends as the single calls would have.
 * (The local ledger answers batches too; the pipeline's tests run through it.)
 */
import { ConfigProvider, Effect, Either, Layer, ManagedRuntime } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { ChainClient, ChainEndpoints } from "../../src/chain/chainClient.js"
import { RpcApplicationError } from "../../src/chain/rpcErrors.js"
import { RpcPool } from "../../src/chain/rpcPool.js"
import { AppConfig } from "../../src/config.js"
import { closeJsonRpcServers, jsonAnswer, startJsonRpcServer } from "../support/jsonRpcServer.js"

interface RpcRequest {
  readonly id: number
  readonly method: string
}

/** A JSON-RPC server answering each request with `answer`; it records every HTTP body it got. */
const start = async (options: { answer: (request: RpcRequest) => unknown; batches?: "answered" | "refused"; status?: number }) => {
  const bodies: Array<unknown> = []
  const url = await startJsonRpcServer((raw, res) => {
    const body = raw as RpcRequest | ReadonlyArray<RpcRequest>
    bodies.push(body)
    const answer = Array.isArray(body)
      ? options.batches === "refused"
        ? { jsonrpc: "2.0", id: null, error: { code: -32600, message: "batch requests are not supported" } }
        : body.map(options.answer)
      : options.answer(body as RpcRequest)
    jsonAnswer(res, options.status ?? 200, answer)
  })
  return { url, bodies }
}

const answers = ({ id, method }: RpcRequest) => {
  if (method === "getSlot") return { jsonrpc: "2.0", id, result: 42 }
  if (method === "getHealth") return { jsonrpc: "2.0", id, result: "ok" }
  if (method === "behind") return { jsonrpc: "2.0", id, error: { code: -32005, message: "Node is behind by 200 slots" } }
  return { jsonrpc: "2.0", id, error: { code: -32002, message: "Transaction simulation failed" } }
}

const settle = (calls: ReadonlyArray<Promise<unknown>>) => Promise.all(calls.map((call) => call.then((value) => ({ value }), (error: unknown) => ({ error }))))

afterAll(closeJsonRpcServers)

describe("RpcPool batches", () => {
  it("sends the calls of one turn as one request, each with its own answer; a lone call goes alone", async () => {
    const server = await start({ answer: answers })
    const pool = new RpcPool([server.url])
    const [slot, refused, health] = await settle([pool.call("getSlot"), pool.call("sendTransaction", ["AAAA"]), pool.call("getHealth")])
    expect(slot).toEqual({ value: 42 })
    expect(health).toEqual({ value: "ok" })
    expect((refused as { error: unknown }).error).toBeInstanceOf(RpcApplicationError)
    expect(((refused as { error: RpcApplicationError }).error).code).toBe(-32002)
    expect(server.bodies).toHaveLength(1)
    expect((server.bodies[0] as ReadonlyArray<RpcRequest>).map((r) => r.method)).toEqual(["getSlot", "sendTransaction", "getHealth"])
    await expect(pool.call("getSlot")).resolves.toBe(42)
    expect(Array.isArray(server.bodies[1])).toBe(false)
    expect(pool.status()[0].failures).toBe(0)
  })

  it("sends single calls to an endpoint that refuses batches, from then on", async () => {
    const server = await start({ answer: answers, batches: "refused" })
    const pool = new RpcPool([server.url])
    await expect(Promise.all([pool.call("getSlot"), pool.call("getHealth")])).resolves.toEqual([42, "ok"])
    // The refused batch, then each call alone.
    expect(server.bodies.map((b) => Array.isArray(b))).toEqual([true, false, false])
    await expect(Promise.all([pool.call("getSlot"), pool.call("getHealth")])).resolves.toEqual([42, "ok"])
    expect(server.bodies.map((b) => Array.isArray(b))).toEqual([true, false, false, false, false])
  })

  it("goes on at the next endpoint when a batch fails in transport, as each single call would have", async () => {
    const failing = await start({ answer: answers, status: 500 })
    const healthy = await start({ answer: answers })
    const failovers: Array<[string, string]> = []
    const pool = new RpcPool([failing.url, healthy.url], { onFailover: (from, to) => failovers.push([from, to]) })
    await expect(Promise.all([pool.call("getSlot"), pool.call("getHealth")])).resolves.toEqual([42, "ok"])
    // The failing endpoint was asked once (the batch), not again per call; the calls went on to the next one.
    expect(failing.bodies).toHaveLength(1)
    expect(failovers).toEqual([
      [failing.url, healthy.url],
      [failing.url, healthy.url]
    ])
    expect(pool.status()[0].lastError).toBe("HTTP 500")
  })

  it("fails a batch's calls with every endpoint tried when the only endpoint fails in transport", async () => {
    const failing = await start({ answer: answers, status: 500 })
    const pool = new RpcPool([failing.url])
    const outcomes = await settle([pool.call("getSlot"), pool.call("getHealth")])
    for (const outcome of outcomes) expect(String((outcome as { error: Error }).error.message)).toMatch(/failed on every RPC endpoint/)
    // One request in all: the batch's failure counts as each call's attempt there.
    expect(failing.bodies).toHaveLength(1)
  })

  it("sends a call its batch answered 'node unhealthy' on to the next endpoint alone", async () => {
    const lagging = await start({ answer: answers })
    const healthy = await start({ answer: ({ id, method }) => (method === "behind" ? { jsonrpc: "2.0", id, result: "caught up" } : answers({ id, method })) })
    const pool = new RpcPool([lagging.url, healthy.url])
    await expect(Promise.all([pool.call("getSlot"), pool.call("behind")])).resolves.toEqual([42, "caught up"])
    expect(lagging.bodies).toHaveLength(1)
    expect(healthy.bodies).toEqual([expect.objectContaining({ method: "behind" })])
  })

  it("sends every call alone with maxBatch 1", async () => {
    const server = await start({ answer: answers })
    const pool = new RpcPool([server.url], { maxBatch: 1 })
    await expect(Promise.all([pool.call("getSlot"), pool.call("getHealth")])).resolves.toEqual([42, "ok"])
    expect(server.bodies.map((b) => Array.isArray(b))).toEqual([false, false])
  })
})

/** The service's ChainClient on `url` alone, no retries. */
const chainClientOn = (url: string) =>
  ManagedRuntime.make(
    ChainClient.Default.pipe(
      Layer.provide(Layer.succeed(ChainEndpoints, { urls: [url] })),
      Layer.provide(AppConfig.Default),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([
        ["API_GATEWAY_API_KEYS", "k:*:all"], ["WALLET_KEY_ENCRYPTION_SECRET", "s"], ["CHAIN_RPC_MAX_RETRIES", "0"]
      ]))))
    )
  )

describe("ChainClient.rpcPair (the simulation's account read and simulateTransaction)", () => {
  it("sends both calls as one batch and answers them in order", async () => {
    const server = await start({ answer: answers })
    const runtime = chainClientOn(server.url)
    const pair = await runtime.runPromise(Effect.flatMap(ChainClient, (chain) => chain.rpcPair<number, string>({ method: "getSlot", params: [] }, { method: "getHealth", params: [] })))
    expect(pair).toEqual([42, "ok"])
    expect(server.bodies).toHaveLength(1)
    expect((server.bodies[0] as ReadonlyArray<RpcRequest>).map((r) => r.method)).toEqual(["getSlot", "getHealth"])
    await runtime.dispose()
  })

  it("fails with the failing call's own error, naming its method, when either is refused", async () => {
    const server = await start({ answer: answers })
    const runtime = chainClientOn(server.url)
    for (const [first, second] of [["getSlot", "simulateTransaction"], ["simulateTransaction", "getSlot"]]) {
      const outcome = await runtime.runPromise(
        Effect.either(Effect.flatMap(ChainClient, (chain) => chain.rpcPair({ method: first, params: [] }, { method: second, params: [] })))
      )
      expect(Either.isLeft(outcome)).toBe(true)
      const error = Either.isLeft(outcome) ? outcome.left : undefined
      expect(error).toBeInstanceOf(RpcApplicationError)
      expect((error as RpcApplicationError).code).toBe(-32002)
      expect((error as RpcApplicationError).method).toBe("simulateTransaction")
    }
    await runtime.dispose()
  })
})
