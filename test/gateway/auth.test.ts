/**
 * The spec's Authentication rules over every route pattern of the route-to-scope table: missing key
 * 401, unknown key 401, missing scope 403 naming the scope, tenant mismatch 403, `all` allowed; the
 * per-key rate limit with its headers; and the envelope on every kind of response.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"

/**
 * `admitted`: what the route's handler answers once the gateway let the key through: 200, or the
 * handler's own 404 for an id that does not exist (failedAt `validation`, not the gateway's).
 */
const PATTERNS = [
  { scope: "wallets", method: "GET", path: "/api/v1/wallets", admitted: 200 },
  { scope: "transactions", method: "GET", path: "/api/v1/transactions/00000000-0000-4000-8000-000000000001", admitted: 404 },
  { scope: "policies", method: "GET", path: "/api/v1/policies/00000000-0000-4000-8000-000000000001/versions", admitted: 404 },
  { scope: "agents", method: "GET", path: "/api/v1/agents", admitted: 200 },
  { scope: "protocols", method: "GET", path: "/api/v1/protocols", admitted: 200 },
  { scope: "risk", method: "GET", path: "/api/v1/risk/protocols", admitted: 200 },
  { scope: "audit", method: "GET", path: "/api/v1/audit/events", admitted: 200 },
  { scope: "mcp", method: "GET", path: "/mcp/tools", admitted: 200 }
] as const

type Answer = Awaited<ReturnType<typeof api>>

/** The handler ran: exactly its answer, never a gateway refusal, a 5xx or a route-less 404. */
const expectAdmitted = (response: Answer, admitted: 200 | 404) => {
  expect(response.body.traceId).toMatch(/^[0-9a-f-]{36}$/)
  if (admitted === 200) {
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ status: "success", errorCode: null, failedAt: null })
  } else {
    expect(response.status).toBe(404)
    expect(response.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(response.body.error).toMatch(/ 00000000-0000-4000-8000-000000000001 not found$/)
  }
}

const scopedKeys = PATTERNS.map((p) => `key-${p.scope}:tenant-a:${p.scope}`).join(";")

let service: RunningService
let limited: RunningService

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: { API_GATEWAY_API_KEYS: `key-all:*:all;key-a:tenant-a:all;${scopedKeys}`, API_GATEWAY_RATE_LIMIT_PER_MINUTE: "100000" }
  })
  limited = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: { API_GATEWAY_API_KEYS: "key-limited:*:all", API_GATEWAY_RATE_LIMIT_PER_MINUTE: "5" }
  })
})

afterAll(async () => {
  await service?.stop()
  await limited?.stop()
})

const expectGatewayRefusal = (body: { status: string; errorCode: string | null; failedAt: string | null; traceId: string }) => {
  expect(body.status).toBe("failure")
  expect(body.errorCode).toBe("VALIDATION_ERROR")
  expect(body.failedAt).toBe("gateway")
  expect(body.traceId).toMatch(/^[0-9a-f-]{36}$/)
}

describe.each(PATTERNS)("$method $path (scope $scope)", ({ scope, method, path, admitted }) => {
  it("refuses a missing key with 401", async () => {
    const response = await api(service.baseUrl, method, path, undefined, {})
    expect(response.status).toBe(401)
    expectGatewayRefusal(response.body)
    expect(response.body.error).toBe("Missing x-api-key header")
  })

  it("refuses an unknown key with 401", async () => {
    const response = await api(service.baseUrl, method, path, undefined, { "x-api-key": "nobody" })
    expect(response.status).toBe(401)
    expectGatewayRefusal(response.body)
    expect(response.body.error).toBe("Invalid API key")
  })

  it("refuses a key without the scope with 403 naming the scope", async () => {
    const other = PATTERNS.find((p) => p.scope !== scope)!.scope
    const response = await api(service.baseUrl, method, path, undefined, { "x-api-key": `key-${other}` })
    expect(response.status).toBe(403)
    expectGatewayRefusal(response.body)
    expect(response.body.error).toContain(`'${scope}'`)
  })

  it("admits a key with exactly that scope", async () => {
    const response = await api(service.baseUrl, method, path, undefined, { "x-api-key": `key-${scope}` })
    expectAdmitted(response, admitted)
  })

  it("refuses a tenant mismatch with 403", async () => {
    const response = await api(service.baseUrl, method, path, undefined, { "x-api-key": "key-a", "x-tenant-id": "tenant-b" })
    expect(response.status).toBe(403)
    expectGatewayRefusal(response.body)
    expect(response.body.error).toContain("tenant-a")
  })

  it("admits an `all` key, with its own tenant or `*` in x-tenant-id", async () => {
    const variants: Array<Record<string, string>> = [{ "x-api-key": "key-all" }, { "x-api-key": "key-a", "x-tenant-id": "tenant-a" }, { "x-api-key": "key-a", "x-tenant-id": "*" }]
    for (const headers of variants) {
      const response = await api(service.baseUrl, method, path, undefined, headers)
      expectAdmitted(response, admitted)
    }
  })
})

describe("rate limit", () => {
  it("answers request limit+1 in a window with 429 and the X-RateLimit headers", async () => {
    const statuses: number[] = []
    let last: Awaited<ReturnType<typeof api>> | undefined
    for (let i = 0; i < 6; i++) {
      last = await makeClient(limited.baseUrl, { "x-api-key": "key-limited" }).wallets.list({})
      statuses.push(last.status)
      if (i < 5) {
        expect(last.headers.get("x-ratelimit-limit")).toBe("5")
        expect(last.headers.get("x-ratelimit-remaining")).toBe(String(4 - i))
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    expectGatewayRefusal(last!.body)
    expect(last!.body.error).toBe("Rate limit exceeded")
    expect(last!.headers.get("x-ratelimit-remaining")).toBe("0")
    const reset = Number(last!.headers.get("x-ratelimit-reset"))
    expect(reset).toBeGreaterThan(Date.now() / 1000)
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60)
  })
})

describe("the envelope on every response", () => {
  it("answers /health without a key", async () => {
    const response = await makeClient(service.baseUrl, {}).health.health({})
    expect(response.status).toBe(200)
    expect(response.body).toMatchObject({ status: "success", data: { status: "ok", service: "api-gateway" } })
  })

  it("answers an unknown route with a 404 envelope", async () => {
    for (const path of ["/nothing-here", "/api/v1/wallets/00000000-0000-4000-8000-000000000001/unknown"]) {
      const response = await api(service.baseUrl, "GET", path, undefined, { "x-api-key": "key-all" })
      expect(response.status).toBe(404)
      expect(response.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", data: null })
    }
  })

  it("answers a wrong method with a 404 envelope", async () => {
    const response = await api(service.baseUrl, "DELETE", "/api/v1/wallets", undefined, { "x-api-key": "key-all" })
    expect(response.status).toBe(404)
    expect(response.body.status).toBe("failure")
  })

  it("answers a ledger outage with an envelope that leaks no internals", async () => {
    const created = await makeClient(service.baseUrl, { "x-api-key": "key-all" }).wallets.create({ body: {} })
    const response = await makeClient(service.baseUrl, { "x-api-key": "key-all" }).wallets.balance({ params: { walletId: created.body.data.id } })
    expect(response.status).toBe(503)
    expect(response.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR" })
    expect(response.body.error).not.toMatch(/at .*\.ts/)
  })
})
