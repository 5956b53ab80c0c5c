/**
 * Bounded resources (issue 11 item 8): stage-stream WebSocket connections per key
 * (STREAM_MAX_CONNECTIONS_PER_KEY) and failed authentication attempts per source address
 * (API_GATEWAY_AUTH_FAILURES_PER_MINUTE), each refusal a 429 with the envelope.
 */
import * as http from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { INNER_CALL_HEADER, innerCallToken } from "../../src/gateway/innerCall.js"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"

let service: RunningService
const sockets: Array<WebSocket> = []

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: {
      API_GATEWAY_API_KEYS: "key-one:*:all;key-two:*:all",
      STREAM_MAX_CONNECTIONS_PER_KEY: "2",
      STREAM_HEARTBEAT_MS: "600000",
      API_GATEWAY_AUTH_FAILURES_PER_MINUTE: "3"
    }
  })
})

afterAll(async () => {
  for (const ws of sockets) ws.terminate()
  await service?.stop()
})

type Outcome = { readonly open: WebSocket } | { readonly refused: { status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> } }

const connect = (key: string) =>
  new Promise<Outcome>((resolve, reject) => {
    const ws = new WebSocket(`${service.baseUrl.replace("http", "ws")}/api/v1/stream`, { headers: { "x-api-key": key } })
    sockets.push(ws)
    ws.once("message", () => resolve({ open: ws }))
    ws.once("unexpected-response", (_request, response) => {
      let text = ""
      response.on("data", (chunk: Buffer) => (text += chunk.toString()))
      response.on("end", () => resolve({ refused: { status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) } }))
    })
    ws.once("error", reject)
  })

/** A request from a chosen loopback source address (node's fetch cannot pick one). */
const requestFrom = (localAddress: string, method: "GET" | "POST", path: string, headers: Record<string, string>, body?: unknown) =>
  new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Record<string, unknown> }>((resolve, reject) => {
    const url = new URL(path, service.baseUrl)
    const request = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method, localAddress, headers: body === undefined ? headers : { ...headers, "content-type": "application/json" } },
      (response) => {
        let text = ""
        response.on("data", (chunk: Buffer) => (text += chunk.toString()))
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: JSON.parse(text) }))
      }
    )
    request.once("error", reject)
    request.end(body === undefined ? undefined : JSON.stringify(body))
  })

const getFrom = (localAddress: string, key: string | undefined) =>
  requestFrom(localAddress, "GET", "/api/v1/wallets", key === undefined ? {} : { "x-api-key": key })

describe("stage stream connections per key", () => {
  it("refuses the connection past the limit with a 429 envelope, counts per key, and frees a slot on close", async () => {
    const first = await connect("key-one")
    const second = await connect("key-one")
    expect("open" in first && "open" in second).toBe(true)
    const third = await connect("key-one")
    if (!("refused" in third)) throw new Error("the third connection of one key was accepted")
    expect(third.refused.status).toBe(429)
    expect(third.refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "gateway", data: null })
    expect(third.refused.body.error).toBe("Too many stage stream connections for this key (limit 2); close one first")
    expect("open" in (await connect("key-two"))).toBe(true)

    if ("open" in first) first.open.close()
    const deadline = Date.now() + 10_000
    for (;;) {
      const again = await connect("key-one")
      if ("open" in again) break
      expect(again.refused.status).toBe(429)
      if (Date.now() > deadline) throw new Error("a closed connection never freed its slot")
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })
})

describe("failed authentication per source address", () => {
  it("answers 401 up to the limit, then 429 to every attempt from that address (a valid key too); other addresses are unaffected", async () => {
    const attacker = "127.0.0.7"
    const statuses = [
      (await getFrom(attacker, "guess-1")).status,
      (await getFrom(attacker, undefined)).status,
      (await getFrom(attacker, "guess-2")).status
    ]
    expect(statuses).toEqual([401, 401, 401])
    for (const key of ["guess-3", "key-one"]) {
      const blocked = await getFrom(attacker, key)
      expect(blocked.status).toBe(429)
      expect(blocked.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "gateway", data: null })
      expect(blocked.body.error).toBe("Too many failed authentication attempts from this address (limit 3 a minute); retry after the window resets")
      const retryAfter = Number(blocked.headers["retry-after"])
      expect(retryAfter).toBeGreaterThanOrEqual(1)
      // Whole seconds until the window restarts (X-RateLimit-Reset is rounded up, hence 61 at most).
      expect(retryAfter).toBeLessThanOrEqual(61)
    }
    const stream = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`${service.baseUrl.replace("http", "ws")}/api/v1/stream`, { headers: { "x-api-key": "key-two" }, localAddress: attacker })
      sockets.push(ws)
      ws.once("unexpected-response", (_request, response) => resolve(response.statusCode ?? 0))
      ws.once("message", () => resolve(101))
      ws.once("error", reject)
    })
    expect(stream).toBe(429)
    expect((await getFrom("127.0.0.8", "key-one")).status).toBe(200)
    expect((await makeClient(service.baseUrl, { "x-api-key": "key-one" }).wallets.list({})).status).toBe(200)
  })
})

describe("the MCP tool calls' inner requests (issue 31)", () => {
  it("never count as failed authentications, and are not blocked when their loopback address is", async () => {
    // an inner request (this process's token) with a key that fails: 401 each time, never counted
    for (let i = 0; i < 5; i++) {
      const refused = await requestFrom("127.0.0.10", "GET", "/api/v1/wallets", { "x-api-key": "revoked-meanwhile", [INNER_CALL_HEADER]: innerCallToken })
      expect(refused.status).toBe(401)
    }
    expect((await getFrom("127.0.0.10", "key-one")).status).toBe(200)
    // the service's own loopback address is locked out by failures (the webhook self-delivery of the issue)...
    for (let i = 0; i < 3; i++) expect((await getFrom("127.0.0.1", `guess-${i}`)).status).toBe(401)
    expect((await getFrom("127.0.0.1", "key-one")).status).toBe(429)
    // ...and a tool call from a client elsewhere still works: its inner request goes through 127.0.0.1
    const tool = await requestFrom("127.0.0.11", "POST", "/mcp/call", { "x-api-key": "key-one" }, { tool: "wallet.list", args: {} })
    expect(tool.status).toBe(200)
    expect(tool.body).toMatchObject({ status: "success" })
  })
})
