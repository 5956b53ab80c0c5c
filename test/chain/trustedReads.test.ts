/**
 * A lagging endpoint's "not found" is never proof (issue 30): RpcPool.callTrusted takes an answer only
 * when the caller's judge accepts it, and SignatureLanding asks for statuses only from an endpoint whose
 * context slot is at least the chain tip it read first. Two small JSON-RPC servers play the endpoints:
 * one 100 slots behind that has not seen the transaction, one current that has.
 */
import type { ServerResponse } from "node:http"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ChainClient, ChainEndpoints } from "../../src/chain/chainClient.js"
import { SignatureLanding } from "../../src/chain/landing.js"
import { RpcUnavailableError } from "../../src/chain/rpcErrors.js"
import { RpcPool } from "../../src/chain/rpcPool.js"
import { AppConfig } from "../../src/config.js"
import { closeJsonRpcServers, jsonAnswer, startJsonRpcServer } from "../support/jsonRpcServer.js"

const SIGNATURE = "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
const LANDED_SLOT = 150
const META = { err: null, preBalances: [10], postBalances: [5] }

type Call = { id: number; method: string; params: Array<unknown> }

/** An endpoint at `slot` (block height = slot), that knows the transaction when `slot` is past its slot; `down` methods answer 503. */
const endpoint = (slot: number, down: ReadonlySet<string> = new Set()) =>
  startJsonRpcServer((body, res: ServerResponse) => {
    const { id, method, params } = body as Call
    if (down.has(method)) return jsonAnswer(res, 503, { error: "unavailable" })
    const knows = slot >= LANDED_SLOT
    switch (method) {
      case "getEpochInfo":
        return jsonAnswer(res, 200, { jsonrpc: "2.0", id, result: { absoluteSlot: slot, blockHeight: slot } })
      case "getSignatureStatuses":
        return jsonAnswer(res, 200, {
          jsonrpc: "2.0", id,
          result: { context: { slot }, value: (params[0] as Array<string>).map(() => (knows ? { slot: LANDED_SLOT, err: null, confirmations: null, confirmationStatus: "finalized" } : null)) }
        })
      case "getTransaction":
        return jsonAnswer(res, 200, { jsonrpc: "2.0", id, result: knows ? { slot: LANDED_SLOT, meta: META, transaction: { signatures: [SIGNATURE] } } : null })
      default:
        return jsonAnswer(res, 200, { jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } })
    }
  })

let behind: string
let current: string
let behindWithoutTip: string
let currentWithoutStatuses: string

beforeAll(async () => {
  behind = await endpoint(100)
  current = await endpoint(200)
  behindWithoutTip = await endpoint(100, new Set(["getEpochInfo"]))
  currentWithoutStatuses = await endpoint(200, new Set(["getSignatureStatuses", "getTransaction"]))
})

afterAll(closeJsonRpcServers)

const atLeastSlot = (minSlot: number) => (answer: unknown) =>
  (answer as { context: { slot: number } }).context.slot >= minSlot ? undefined : `context slot behind ${minSlot}`

/** SignatureLanding on a real pool of `urls` (first ranked first), no retry passes. */
const landingOn = (urls: ReadonlyArray<string>) => {
  const provider = ConfigProvider.fromMap(new Map([
    ["API_GATEWAY_API_KEYS", "k:*:all"], ["WALLET_KEY_ENCRYPTION_SECRET", "s"], ["CHAIN_RPC_MAX_RETRIES", "0"], ["CHAIN_RPC_MAX_BATCH", "1"]
  ]))
  const layer = SignatureLanding.Default.pipe(
    Layer.provide(ChainClient.Default),
    Layer.provide(Layer.succeed(ChainEndpoints, { urls })),
    Layer.provide(AppConfig.Default),
    Layer.provide(Layer.setConfigProvider(provider))
  )
  return ManagedRuntime.make(layer)
}

describe("trusted reads through the RPC pool", () => {
  it("a plain call takes the first endpoint's 'not found'; a trusted one goes on to an endpoint at the slot the caller knows was reached", async () => {
    const plain = await new RpcPool([behind, current], { maxBatch: 1 }).call<{ value: Array<unknown> }>("getSignatureStatuses", [[SIGNATURE], { searchTransactionHistory: true }])
    expect(plain.value).toEqual([null])
    const pool = new RpcPool([behind, current], { maxBatch: 1 })
    const trusted = await pool.callTrusted<{ context: { slot: number }; value: Array<unknown> }>("getSignatureStatuses", [[SIGNATURE], { searchTransactionHistory: true }], atLeastSlot(200))
    expect(trusted).toMatchObject({ context: { slot: 200 }, value: [{ slot: LANDED_SLOT }] })
    const [lagging] = pool.status()
    expect(lagging.lastError).toContain("answer not trusted: context slot behind 200")
  })

  it("with only endpoints behind, a trusted read fails (no answer) instead of answering 'not found'", async () => {
    const pool = new RpcPool([behind], { maxBatch: 1 })
    await expect(pool.callTrusted("getSignatureStatuses", [[SIGNATURE], {}], atLeastSlot(200))).rejects.toBeInstanceOf(RpcUnavailableError)
  })

  it("SignatureLanding: tip from the current endpoint, statuses refused from the lagging one: Landed, with the meta from the endpoint that has it", async () => {
    const runtime = landingOn([behindWithoutTip, current])
    try {
      const landed = await runtime.runPromise(Effect.flatMap(SignatureLanding, (landing) => landing.check([{ signature: SIGNATURE, lastValidBlockHeight: 160n }])))
      expect(landed).toEqual({ _tag: "Landed", signature: SIGNATURE, slot: BigInt(LANDED_SLOT), meta: META })
    } finally {
      await runtime.dispose()
    }
  })

  it("SignatureLanding: past the last valid height with only the lagging endpoint answering statuses, it concludes nothing (an error), never NotLanded", async () => {
    const runtime = landingOn([behindWithoutTip, currentWithoutStatuses])
    try {
      const outcome = await runtime.runPromise(Effect.either(Effect.flatMap(SignatureLanding, (landing) => landing.check([{ signature: SIGNATURE, lastValidBlockHeight: 160n }]))))
      expect(outcome._tag).toBe("Left")
    } finally {
      await runtime.dispose()
    }
  })

  it("SignatureLanding: an endpoint consistently behind answers for the chain as far as it has seen: Open before its height passes the last valid one, NotLanded after", async () => {
    const runtime = landingOn([behind])
    try {
      const check = (lastValidBlockHeight: bigint) => runtime.runPromise(Effect.flatMap(SignatureLanding, (landing) => landing.check([{ signature: SIGNATURE, lastValidBlockHeight }])))
      expect(await check(120n)).toEqual({ _tag: "Open", until: 120n, blockHeight: 100n })
      expect(await check(90n)).toEqual({ _tag: "NotLanded", lastValidBlockHeight: 90n, blockHeight: 100n })
    } finally {
      await runtime.dispose()
    }
  })
})
