/**
 * Inputs that used to crash a request or slip through to PostgreSQL (issue 11 item 10): each is a 400
 * envelope naming the field, at validation, and changes no row.
 */
import { request } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { changedTables, KEY_USAGE_SETTLED_MS, settledDigests, type TableDigests } from "../support/tableDigest.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)
const DESTINATION = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
let walletId: string
let agentId: string
let before: TableDigests

beforeAll(async () => {
  walletId = (await client().wallets.create({ body: { label: "hardening" } })).body.data.id
  agentId = (await client().agents.create({ body: { name: "hardening", walletId, budgetLamports: 1_000 } })).body.data.id
})

const call = (method: string, path: string, body?: unknown) => api(env.service.baseUrl, method, path, body)

/** Asserts a 400 VALIDATION_ERROR envelope at validation whose message names `field`. */
const expectRefused = (response: Awaited<ReturnType<typeof call>>, field: string) => {
  expect(response.status, JSON.stringify(response.body)).toBe(400)
  expect(response.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation", data: null })
  expect(response.body.error?.startsWith(`${field}: `), response.body.error).toBe(true)
}

describe("inputs refused at validation, changing nothing", () => {
  beforeAll(async () => {
    // The key's first use (the setup) is audited within 2 s: that is not a refused request's doing.
    before = await settledDigests(env.service, undefined, KEY_USAGE_SETTLED_MS)
  })
  afterAll(async () => {
    expect(changedTables(before, await settledDigests(env.service, undefined, KEY_USAGE_SETTLED_MS))).toEqual([])
  })

  it("refuses JSON nested 5,000 deep on every kind of body route, naming the body", async () => {
    const deep = `${"[".repeat(5_000)}${"]".repeat(5_000)}`
    const deepObject = `{"label":${'{"a":'.repeat(5_000)}1${"}".repeat(5_000)}}`
    for (const [method, path] of [
      ["POST", "/api/v1/wallets"],
      ["POST", "/api/v1/transactions"],
      ["POST", "/api/v1/evaluate"],
      ["POST", "/api/v1/policies"],
      ["POST", "/api/v1/agents"],
      ["POST", "/api/v1/audit/events"],
      ["PUT", "/api/v1/risk/protocols/amm-one"],
      ["POST", "/api/v1/treasury/allocate"]
    ]) {
      const array = await call(method, path, deep)
      expect(array.status).toBe(400)
      expect(array.body.error).toMatch(/^body(\[0\])+: is nested deeper than 32 levels/)
      const nested = await call(method, path, deepObject)
      expect(nested.status).toBe(400)
      expect(nested.body.error).toMatch(/^label(\.a)+: is nested deeper than 32 levels/)
    }
  })

  it("refuses a NUL character in any string, value or key, naming its field", async () => {
    expectRefused(await call("POST", "/api/v1/evaluate", { walletId, type: "transfer_sol", protocol: "system-program\u0000" }), "protocol")
    expectRefused(await call("POST", "/api/v1/audit/events", { eventType: "custom.\u0000", message: "m" }), "eventType")
    expectRefused(await call("POST", "/api/v1/audit/events", { eventType: "custom.ok", message: "m", metadata: { note: ["x", "a\u0000b"] } }), "metadata.note[1]")
    expectRefused(await call("POST", "/api/v1/audit/events", { eventType: "custom.ok", message: "m", metadata: { "k\u0000": 1 } }), "metadata")
    expectRefused(await call("POST", "/api/v1/wallets", { label: "a\u0000" }), "label")
    expectRefused(await call("POST", "/api/v1/agents", { name: "\u0000" }), "name")
    expectRefused(
      await call("POST", "/api/v1/transactions", { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 1, memo: "\u0000" } }),
      "intent.memo"
    )
    expectRefused(await call("GET", "/api/v1/audit/events?eventType=%00"), "eventType")
    expectRefused(await call("GET", "/api/v1/wallets?publicKey=a%00b"), "publicKey")
  })

  it("refuses an unpaired surrogate (high or low) in a string, naming its field", async () => {
    // JSON.stringify writes a lone surrogate as a \ud800 escape, which JSON.parse turns back into one.
    expectRefused(await call("POST", "/api/v1/evaluate", { walletId, type: "transfer_sol", protocol: "amm-one\ud800" }), "protocol")
    expectRefused(await call("POST", "/api/v1/audit/events", { eventType: "\udc00custom", message: "m" }), "eventType")
    expectRefused(await call("POST", "/api/v1/audit/events", { eventType: "custom", message: "tail \ud83d" }), "message")
    expectRefused(await call("POST", "/api/v1/policies", { walletId, name: "p\udfff", rules: [] }), "name")
    // A well-formed pair (an emoji) is fine.
    const emoji = await call("POST", "/api/v1/audit/events", { eventType: "custom.emoji", message: "ok \ud83d\ude00" })
    expect(emoji.status).toBe(201)
    before = await settledDigests(env.service)
  })

  it("refuses a path parameter with a NUL (PUT /risk/protocols/%00) and names that are no protocol", async () => {
    expectRefused(await call("PUT", "/api/v1/risk/protocols/%00", { maxSlippageBps: 10 }), "protocol")
    expectRefused(await call("GET", "/api/v1/risk/protocols/%00"), "protocol")
    expectRefused(await call("PUT", "/api/v1/risk/protocols/not-a-protocol", { maxSlippageBps: 10 }), "protocol")
    expectRefused(await call("PUT", `/api/v1/risk/protocols/${"x".repeat(100)}`, { maxSlippageBps: 10 }), "protocol")
    expectRefused(await call("POST", "/api/v1/evaluate", { walletId, type: "transfer_sol", protocol: "moon-dex" }), "protocol")
    expectRefused(await call("POST", "/api/v1/policies", { walletId, name: "p", rules: [{ type: "protocol_allowlist", protocols: ["amm-one", "moon"] }] }), "rules[0].protocols[1]")
    expectRefused(await call("GET", "/api/v1/agents/%00"), "agentId")
  })

  it("refuses lamports and token amounts beyond u64 (18446744073709551616) at validation", async () => {
    const tooBig = "18446744073709551616"
    expectRefused(
      await call("POST", "/api/v1/transactions", { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: tooBig } }),
      "intent.lamports"
    )
    expectRefused(
      await call("POST", "/api/v1/transactions", { walletId, type: "transfer_spl", protocol: "spl-token", intent: { mint: DESTINATION, destination: DESTINATION, amount: tooBig } }),
      "intent.amount"
    )
    expectRefused(await call("POST", "/api/v1/evaluate", { walletId, type: "transfer_sol", protocol: "system-program", amountLamports: tooBig }), "amountLamports")
    expectRefused(await call("POST", "/api/v1/policies", { walletId, name: "p", rules: [{ type: "spending_limit", maxLamportsPerTx: tooBig }] }), "rules[0].maxLamportsPerTx")
  })

  it("refuses budgets and treasury amounts beyond u64, and an allocation that would pass it", async () => {
    const tooBig = "18446744073709551616"
    expectRefused(await call("POST", "/api/v1/agents", { name: "big", budgetLamports: tooBig }), "budgetLamports")
    expectRefused(await call("PUT", `/api/v1/agents/${agentId}/capabilities`, { allowedIntents: ["transfer_sol"], budgetLamports: tooBig }), "budgetLamports")
    expectRefused(await call("POST", "/api/v1/treasury/allocate", { targetAgentId: agentId, lamports: tooBig }), "lamports")
    // 1,000 lamports of budget + u64 max would pass u64: refused, the budget stays.
    expectRefused(await call("POST", "/api/v1/treasury/allocate", { targetAgentId: agentId, lamports: "18446744073709551615" }), "lamports")
    expect((await client().agents.budget({ params: { agentId } })).body.data.budgetLamports).toBe(1_000)
  })
})

describe("a large body sent chunked", () => {
  it("answers 400 naming the body instead of resetting the connection", async () => {
    const url = new URL(env.service.baseUrl)
    const reply = await new Promise<{ status: number; body: any }>((resolve, reject) => {
      const req = request(
        { host: url.hostname, port: url.port, method: "POST", path: "/api/v1/wallets", headers: { "content-type": "application/json", "x-api-key": "test-admin-key" } },
        (res) => {
          const chunks: Buffer[] = []
          res.on("data", (chunk: Buffer) => chunks.push(chunk))
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) }))
        }
      )
      req.on("error", reject)
      // 5 MB in 64 KiB chunks, no content-length: Transfer-Encoding chunked.
      const chunk = Buffer.alloc(64 * 1024, " ")
      let sent = 0
      const write = () => {
        while (sent < 5_000_000) {
          sent += chunk.length
          if (!req.write(chunk)) return void req.once("drain", write)
        }
        req.end()
      }
      write()
    })
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(reply.body.error).toMatch(/^body: larger than 1 MiB/)
    // The connection and the service are fine afterwards.
    expect((await call("GET", `/api/v1/wallets/${walletId}`)).status).toBe(200)
  })
})
