/**
 * The auth x tenancy matrix (issue 11), generated from the route table itself (`routes` in src/app.ts),
 * so a route added later is covered without editing this file: every route with no key, an unknown key,
 * a key without the route's scope, another tenant's key using this tenant's ids, a tenant header
 * mismatch, and an agent-bound key (of another agent than the one whose ids are used). Each answer is
 * checked for its exact status and envelope; none is 2xx where it must refuse, none is 5xx.
 * The matrix runs twice: with bootstrap keys (API_GATEWAY_API_KEYS) and with the same keys issued over the
 * API (issue 36), the agent-bound one bound to a real second agent of tenant A.
 * One service start, on a dead ledger URL: no request here needs the chain.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { routes } from "../../src/app.js"
import { isConsolePath } from "../../src/gateway/consoleHttp.js"
import { scopeForPath } from "../../src/gateway/routeScopes.js"
import { api, type RunningService, startService } from "../support/service.js"
import { dataOf, makeClient } from "../support/client.js"
import { onlyDeclared } from "../../src/gateway/declaredFields.js"

const SCOPES = ["wallets", "transactions", "policies", "agents", "protocols", "risk", "strategy", "treasury", "audit", "mcp", "webhooks", "keys"] as const
const BOUND_AGENT = "7d0e6c1a-5b8f-4c3e-9a2d-1f4b6e8c0a9d"
const KEYS = [
  "op-a:tenant-a:all",
  "op-b:tenant-b:all",
  "ops:*:all",
  `agent-a:tenant-a:all:agent=${BOUND_AGENT}`,
  ...SCOPES.map((scope) => `only-${scope}:tenant-a:${scope}`)
].join(";")

const OWNER = { "x-api-key": "op-a" }
type Envelope = Awaited<ReturnType<typeof api>>
type KeyName = "op-a" | "op-b" | "ops" | "agent-a" | `only-${(typeof SCOPES)[number]}`

/** The keys the matrix uses by name, and the agent its agent-bound key acts as. */
interface KeySet {
  readonly source: "bootstrap" | "issued"
  readonly keys: Record<string, string>
  boundAgent: string
}
const bootstrap: KeySet = { source: "bootstrap", keys: {}, boundAgent: BOUND_AGENT }
const issued: KeySet = { source: "issued", keys: {}, boundAgent: "" }
const keyOf = (set: KeySet, name: KeyName) => set.keys[name] ?? name

let service: RunningService
/** Tenant A's resources, created through the API by tenant A's operator. */
const ids = { walletId: "", agentId: "", agentWalletId: "", policyId: "", txId: "", keyId: "" }

/** The bootstrap keys again, issued over the API by the deployment's key; the agent key bound to a second agent of tenant A. */
const issueKeySet = async () => {
  const ops = makeClient(service.baseUrl, { "x-api-key": "ops" })
  issued.boundAgent = dataOf(await makeClient(service.baseUrl, OWNER).agents.create({ body: { name: "tenant a's other agent" } })).id
  const wanted: Array<[KeyName, { tenant: string; scopes: Array<(typeof SCOPES)[number] | "all">; agentId?: string }]> = [
    ["op-a", { tenant: "tenant-a", scopes: ["all"] }],
    ["op-b", { tenant: "tenant-b", scopes: ["all"] }],
    ["ops", { tenant: "*", scopes: ["all"] }],
    ["agent-a", { tenant: "tenant-a", scopes: ["all"], agentId: issued.boundAgent }],
    ...SCOPES.map((scope): [KeyName, { tenant: string; scopes: Array<(typeof SCOPES)[number]> }] => [`only-${scope}`, { tenant: "tenant-a", scopes: [scope] }])
  ]
  for (const [name, body] of wanted) issued.keys[name] = dataOf(await ops.keys.issue({ body })).secret
}

beforeAll(async () => {
  // No pause between passes over the dead ledger URL: the market-data routes that try it answer their 503
  // after the same retries, without waiting 1 s before each (3 s a request by default).
  service = await startService({ rpcUrl: "http://127.0.0.1:9", env: { API_GATEWAY_API_KEYS: KEYS, CHAIN_RPC_RETRY_DELAY_MS: "0" } })
  const owner = makeClient(service.baseUrl, OWNER)
  ids.walletId = dataOf(await owner.wallets.create({ body: { label: "tenant a" } })).id
  const agent = dataOf(await owner.agents.create({ body: { name: "tenant a agent" } }))
  ids.agentId = agent.id
  ids.agentWalletId = agent.walletId
  ids.policyId = dataOf(await owner.policies.create({ body: { walletId: ids.walletId, name: "p", rules: [] } })).id
  ids.txId = dataOf(await owner.transactions.create({ body: { walletId: ids.walletId, type: "query_balance", protocol: "system-program", intent: {} } })).id
  ids.keyId = dataOf(await owner.keys.issue({ body: { scopes: ["wallets"], label: "tenant a's key" } })).id
  await issueKeySet()
  before = await tenantAState()
}, 120_000)

afterAll(async () => {
  await service?.stop()
})

/** Path parameters filled with tenant A's ids (or fixed values for parameters that are not tenant data). */
const fillPath = (path: string) =>
  path.replace(/:(\w+)/g, (_match, name: string) => {
    switch (name) {
      case "walletId": return ids.walletId
      case "txId": return ids.txId
      case "agentId": return ids.agentId
      case "policyId": return ids.policyId
      case "keyId": return ids.keyId
      case "version": return "1"
      case "protocol": return "system-program"
      case "id": return "1"
      case "name": return "stage-stream"
      // The value limits of tenant A's agent (/risk/value-limits/:scope/:targetId).
      case "scope": return "agent"
      case "targetId": return ids.agentId
      default: return `unknown-${name}`
    }
  })

/** A body naming tenant A's ids under every name a route reads them by (each route is sent the fields it declares). */
const body = () => ({
  walletId: ids.walletId,
  agentId: ids.agentId,
  targetAgentId: ids.agentId,
  sourceAgentId: ids.agentId,
  txId: ids.txId,
  name: "matrix",
  rules: [],
  type: "query_balance",
  protocol: "system-program",
  intent: {},
  allowedIntents: ["query_balance"],
  allowedProtocols: ["system-program"],
  lamports: 1,
  steps: [{ type: "transfer_sol", protocol: "system-program", intent: {}, timestamp: "2025-01-01T00:00:00Z" }],
  manifest: {},
  eventType: "matrix.test",
  message: "matrix",
  metadata: {},
  value: 1,
  targetVersion: 1,
  escrowNumericId: "1",
  creator: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
})

/** Market data an agent may read: pools, quotes, swap previews and oracle prices hold no tenant's state. */
const MARKET_DATA = new Set(["GET /api/v1/defi/pools", "POST /api/v1/defi/quote", "POST /api/v1/defi/swap", "GET /api/v1/defi/oracle/prices"])

/** Routes that need a valid body of their own, so their id checks are reached. */
const BODY_OVERRIDES: Record<string, () => unknown> = {
  "PUT /api/v1/risk/portfolio/:walletId": () => ({ autoPauseOnBreach: true }),
  "POST /api/v1/agents/:agentId/manifest/revoke": () => ({ nonce: "matrix-nonce" }),
  "POST /api/v1/keys/:keyId/revoke": () => ({ reason: "matrix" }),
  "POST /api/v1/keys/:keyId/rotate": () => ({ graceSeconds: 0 }),
  "PUT /api/v1/risk/value-limits/:scope/:targetId": () => ({ limits: [] })
}

// Public paths need no key: /health, and the console's static page (its data comes from the API with the operator's key).
const PROTECTED = routes.filter((route) => route.path !== "/health" && route.path !== "/api/v1/openapi.json" && !isConsolePath(route.path.replace("/*", "")))

const call = (route: (typeof routes)[number], headers: Record<string, string>) =>
  api(
    service.baseUrl,
    route.method,
    fillPath(route.path),
    route.method === "GET" ? undefined : (BODY_OVERRIDES[`${route.method} ${route.path}`] ?? (() => onlyDeclared(route.endpoint?.body, body())))(),
    headers
  )

/** The 404 of tenant A's resource named by the route's path parameter `param`. */
const notFoundOf = (param: string) => new RegExp(`^${RESOURCE[param]} (version )?${fillPath(`:${param}`)}( v\\d+)? not found$`)

const expectRefusal = (response: Envelope, status: number, failedAt: string, message: string | RegExp) => {
  expect(response.status).toBe(status)
  expect(response.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt, data: null })
  expect(response.body.traceId).toMatch(/^[0-9a-f-]{36}$/)
  if (typeof message === "string") expect(response.body.error).toBe(message)
  else expect(response.body.error).toMatch(message)
  expect(response.body.errorMessage).toBe(response.body.error)
}

/** Which tenant A id a route's path names (its answer for another tenant must be that id's 404). */
const ownedParam = (path: string) => ["walletId", "txId", "agentId", "policyId", "keyId", "targetId"].find((name) => path.includes(`:${name}`))
const RESOURCE: Record<string, string> = { walletId: "wallet", txId: "transaction", agentId: "agent", policyId: "policy", keyId: "api key", targetId: "agent" }

const CASES = [bootstrap, issued].flatMap((set) => PROTECTED.map((route) => ({ source: set.source, set, method: route.method, path: route.path, route })))

describe.each(CASES)("$source keys: $method $path", ({ set, route }) => {
  const scope = scopeForPath(route.path)
  const key = (name: KeyName) => ({ "x-api-key": keyOf(set, name) })

  it("has a scope in the route-to-scope table", () => {
    expect(scope).toBeDefined()
  })

  it("refuses no key (401) and an unknown key (401)", async () => {
    expectRefusal(await call(route, {}), 401, "gateway", "Missing x-api-key header")
    expectRefusal(await call(route, { "x-api-key": "not-a-key" }), 401, "gateway", "Invalid API key")
  })

  it("refuses a key without the route's scope (403 naming it)", async () => {
    const other = SCOPES.find((candidate) => candidate !== scope)!
    expectRefusal(await call(route, key(`only-${other}`)), 403, "gateway", `Insufficient scope: this route requires the '${scope}' scope`)
  })

  it("refuses a tenant header mismatch (403)", async () => {
    expectRefusal(await call(route, { ...key("op-a"), "x-tenant-id": "tenant-b" }), 403, "gateway", "Tenant mismatch: this key is bound to tenant 'tenant-a', not 'tenant-b'")
  })

  it("refuses an agent-bound key unless the route is an agent's, and then shows it nothing of another agent", async () => {
    const response = await call(route, key("agent-a"))
    if (route.access !== "agent") {
      expectRefusal(response, 403, "gateway", /^Operator credential required: this key acts as agent /)
      return
    }
    if (route.method === "GET" && route.path === "/api/v1/agents") {
      expect(response.status).toBe(200)
      // Its own agent only (the bootstrap key's agent does not exist).
      expect(response.body.data).toEqual(expect.objectContaining({ agents: set.source === "bootstrap" ? [] : [expect.objectContaining({ id: set.boundAgent })] }))
    } else if (route.method === "POST" && route.path === "/api/v1/transactions") {
      expectRefusal(response, 403, "gateway", `This key acts as agent ${set.boundAgent}: it spends only from that agent's wallet, as that agent`)
    } else if (MARKET_DATA.has(`${route.method} ${route.path}`)) {
      // No tenant's state: the agent is admitted and learns no tenant id (503: this service has no ledger).
      expect([200, 400, 503]).toContain(response.status)
      const text = JSON.stringify(response.body.data ?? null)
      for (const id of Object.values(ids)) expect(text).not.toContain(id)
    } else {
      const param = ownedParam(route.path)
      expect(param).toBeDefined()
      expectRefusal(response, 404, "validation", notFoundOf(param!))
    }
  })

  it("never lets another tenant's key reach this tenant's data; never 2xx on its ids, never 5xx", async () => {
    const response = await call(route, key("op-b"))
    // Market data reads the chain, which this service cannot reach: 503 is that, not a fault.
    if (MARKET_DATA.has(`${route.method} ${route.path}`)) expect([200, 400, 503]).toContain(response.status)
    else expect(response.status).toBeLessThan(500)
    if (route.access === "deployment") {
      expectRefusal(response, 403, "gateway", /^Operator credential required: a deployment-wide operation/)
      return
    }
    const param = ownedParam(route.path)
    if (param !== undefined) {
      expectRefusal(response, 404, "validation", notFoundOf(param))
      return
    }
    // Routes that name tenant A's ids only in the body: refused, or (list and stateless routes) answered
    // without any of tenant A's data.
    const text = JSON.stringify(response.body.data ?? null)
    for (const id of Object.values(ids)) expect(text).not.toContain(id)
    // A read without tenant A's ids may answer (tenant B's own view); a write must be one that takes none of them.
    if (response.status < 300 && route.method !== "GET") expect(BODY_FREE_SUCCESS.has(`${route.method} ${route.path}`)).toBe(true)
  })
})

/**
 * Writes whose success for another tenant is right: they take no tenant A id (tenant B's own wallet,
 * audit event or risk config, stateless checks). Any other write answering 2xx to tenant B with tenant
 * A's ids is a hole.
 */
const BODY_FREE_SUCCESS = new Set([
  "POST /api/v1/wallets",
  "POST /api/v1/audit/events",
  "POST /api/v1/protocols/:protocol/compatibility-check",
  "POST /api/v1/protocols/:protocol/migrate-intent",
  "POST /api/v1/policies/compatibility-check",
  "PUT /api/v1/risk/protocols/:protocol"
])

/** What tenant A's operator reads of its own resources; nothing the other keys sent may change it. */
const tenantAState = async () => {
  // The wire form each read answers (body.data), as the other keys' calls would have changed it.
  const owner = makeClient(service.baseUrl, OWNER)
  const agent = (await owner.agents.get({ params: { agentId: ids.agentId } })).body.data
  return {
    wallet: (await owner.wallets.get({ params: { walletId: ids.walletId } })).body.data,
    agent: { ...agent, updatedAt: undefined },
    budget: { ...(await owner.agents.budget({ params: { agentId: ids.agentId } })).body.data, updatedAt: undefined },
    policy: (await owner.policies.versions({ params: { policyId: ids.policyId } })).body.data,
    portfolio: (await owner.risk.getPortfolio({ params: { walletId: ids.walletId } })).body.data,
    transactions: (await owner.transactions.listByWallet({ params: { walletId: ids.walletId } })).body.data.transactions.map((tx) => tx.id),
    agentTransactions: (await owner.transactions.listByWallet({ params: { walletId: ids.agentWalletId } })).body.data.total,
    apiKey: (await owner.keys.get({ params: { keyId: ids.keyId } })).body.data
  }
}
let before: Awaited<ReturnType<typeof tenantAState>>

describe.each([bootstrap, issued])("deployment-wide operations ($source keys)", (set) => {
  const deployment = PROTECTED.filter((route) => route.access === "deployment")

  it("include metrics, outbox stats, chaos and runtime actors", () => {
    const names = deployment.map((route) => `${route.method} ${route.path}`)
    for (const name of ["POST /api/v1/metrics/inc", "GET /api/v1/outbox/stats", "GET /api/v1/chaos", "PUT /api/v1/chaos", "GET /api/v1/runtime/actors"]) {
      expect(names).toContain(name)
    }
  })

  it("refuse a tenant-bound operator key and a wildcard key narrowed to a tenant; admit a wildcard key", async () => {
    for (const route of deployment) {
      const path = fillPath(route.path)
      const payload = route.method === "GET" ? undefined : route.path === "/api/v1/metrics/inc" ? { name: "matrix.count", value: 1 } : {}
      const narrowed: Array<Record<string, string>> = [{ "x-api-key": keyOf(set, "op-a") }, { "x-api-key": keyOf(set, "ops"), "x-tenant-id": "tenant-a" }]
      for (const headers of narrowed) {
        expectRefusal(await api(service.baseUrl, route.method, path, payload, headers), 403, "gateway", /deployment-wide operation/)
      }
      if (route.path === "/metrics") {
        // The Prometheus text format, not an envelope (refusals above are envelopes).
        expect((await fetch(service.baseUrl + path, { headers: { "x-api-key": keyOf(set, "ops") } })).status).toBe(200)
        continue
      }
      const admitted = await api(service.baseUrl, route.method, path, payload, { "x-api-key": keyOf(set, "ops") })
      // PUT /chaos answers 403 while CHAOS_ENABLED is false: that refusal is the deployment's, not the key's.
      if (route.method === "PUT" && route.path === "/api/v1/chaos") expect(admitted.body.error).not.toMatch(/Operator credential/)
      // The path names no known feed (and this service has no ledger): admitted, then that feed's 404.
      else if (route.path === "/api/v1/defi/oracle/prices/:symbol") expect(admitted).toMatchObject({ status: 404, body: { error: expect.stringMatching(/^oracle feed .* not found$/) } })
      // Admitted, then the empty body's refusal naming the field.
      else if (route.path === "/api/v1/defi/stake/rewards") expect(admitted).toMatchObject({ status: 400, body: { error: expect.stringContaining("lamports") } })
      else expect(admitted.status).toBe(200)
    }
  })
})

describe("after every refused request", () => {
  it("left tenant A's wallet, agent, budget, policy, risk controls and transactions as they were", async () => {
    expect(await tenantAState()).toEqual(before)
  })
})
