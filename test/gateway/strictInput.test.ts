/**
 * Strict input (issue 32, docs/decisions/input-hardening.md): an unknown field is refused like a wrong one,
 * at every level whose shape is known (the body, intents by type, rules by type, autonomy steps and rules),
 * on every route's body and query, with a 400 naming it; a body that is not JSON is a 415. Each refusal
 * changes nothing.
 */
import { request as httpRequest } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { routes } from "../../src/app.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY, api } from "../support/service.js"
import { changedTables, settledDigests, type TableDigests } from "../support/tableDigest.js"

// Chaos enabled, so PUT /chaos reaches its body check (a refused body changes nothing there either).
const env = useServiceWithLedger({ env: { AGENT_SCHEDULER_ENABLED: "false", CHAOS_ENABLED: "true" } })
const client = () => makeClient(env.service.baseUrl)
const call = (method: string, path: string, body?: unknown) => api(env.service.baseUrl, method, path, body)
const DESTINATION = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
const ids: Record<string, string> = {}

beforeAll(async () => {
  ids.walletId = (await client().wallets.create({ body: { label: "strict" } })).body.data.id
  ids.agentId = (await client().agents.create({ body: { name: "strict", walletId: ids.walletId } })).body.data.id
  ids.policyId = (await client().policies.create({ body: { walletId: ids.walletId, name: "strict", rules: [] } })).body.data.id
  ids.txId = (await client().transactions.create({ body: { walletId: ids.walletId, type: "query_balance", protocol: "system-program", intent: {} } })).body.data.id
  ids.webhookId = (await client().webhooks.create({ body: { url: "https://hooks.example.com/strict", eventTypes: ["transaction.confirmed"] } })).body.data.id
})

/** A 400 VALIDATION_ERROR at validation whose message starts with `field: unknown ...`. */
const expectUnknown = (answer: Awaited<ReturnType<typeof call>>, field: string, what = "") => {
  expect(answer.status, `${what} ${JSON.stringify(answer.body)}`).toBe(400)
  expect(answer.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation", stage: "validation" })
  expect(answer.body.error, what).toMatch(new RegExp(`^${field.replace(/[.[\]]/g, "\\$&")}: unknown (field|query parameter)`))
}

describe("unknown fields are refused, naming them, and change nothing", () => {
  let before: TableDigests
  beforeAll(async () => {
    before = await settledDigests(env.service)
  })
  afterAll(async () => {
    expect(changedTables(before, await settledDigests(env.service))).toEqual([])
  })

  it("refuses a misspelt safety field on create (requireAproval) and says which field was meant", async () => {
    const answer = await call("POST", "/api/v1/transactions", {
      walletId: ids.walletId, type: "transfer_sol", protocol: "system-program", requireAproval: true,
      intent: { destination: DESTINATION, lamports: 1_000_000 }
    })
    expectUnknown(answer, "requireAproval")
    expect(answer.body.error).toContain("did you mean requireApproval?")
  })

  it("names every unknown field, the body's and the intent's (intents by type)", async () => {
    const answer = await call("POST", "/api/v1/transactions", {
      walletId: ids.walletId, type: "transfer_sol", protocol: "system-program", note: "x",
      intent: { destination: DESTINATION, lamports: 1_000_000, memo: "hi" }
    })
    expectUnknown(answer, "note")
    const intent = await call("POST", "/api/v1/transactions", {
      walletId: ids.walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamport: 1_000_000 }
    })
    expectUnknown(intent, "intent.lamport")
    expect(intent.body.error).toContain("did you mean lamports?")
    const swap = await call("POST", "/api/v1/transactions", {
      walletId: ids.walletId, type: "swap", protocol: "amm-one",
      intent: { inputMint: DESTINATION, outputMint: DESTINATION, amount: "1", slippageBps: 50, maxSlippage: 10, extra: 1 }
    })
    expectUnknown(swap, "intent.maxSlippage")
    expect(swap.body.error).toContain("also unknown: intent.extra")
    const paper = await call("POST", "/api/v1/transactions", {
      walletId: ids.walletId, type: "paper_trade", protocol: "system-program",
      intent: { type: "transfer_sol", protocol: "system-program", intent: { destination: DESTINATION, lamports: 1, lamprts: 2 } }
    })
    expectUnknown(paper, "intent.intent.lamprts")
  })

  it("refuses unknown fields of policy rules by type, and of an evaluation", async () => {
    expectUnknown(
      await call("POST", "/api/v1/policies", { walletId: ids.walletId, name: "p", rules: [{ type: "spending_limit", maxLamportPerTx: 5 }] }),
      "rules[0].maxLamportPerTx"
    )
    expectUnknown(
      await call("PUT", `/api/v1/policies/${ids.policyId}`, { rules: [{ type: "address_allowlist", addresses: [], adresses: [] }] }),
      "rules[0].adresses"
    )
    expectUnknown(await call("POST", "/api/v1/evaluate", { walletId: ids.walletId, type: "transfer_sol", protocol: "system-program", amountLamport: 5 }), "amountLamport")
  })

  it("refuses unknown fields of autonomy steps and rules, and of their intents by type (templates still allowed)", async () => {
    const step = { id: "s", type: "transfer_sol", protocol: "system-program", intent: { destination: "{{knownWallet0}}", lamports: "{{tick}}" } }
    expectUnknown(await call("POST", "/api/v1/agents", { name: "a", autonomy: { steps: [{ ...step, cooldown: 5 }] } }), "autonomy.steps[0].cooldown")
    expectUnknown(
      await call("POST", "/api/v1/agents", { name: "a", autonomy: { steps: [{ ...step, intent: { ...step.intent, lamport: 1 } }] } }),
      "autonomy.steps[0].intent.lamport"
    )
    expectUnknown(
      await call("PUT", `/api/v1/agents/${ids.agentId}/capabilities`, {
        allowedIntents: ["transfer_sol"],
        autonomy: { rules: [{ id: "r", when: [{ metric: "tick", op: "gt", value: 1, unit: "s" }], then: { type: "transfer_sol", protocol: "system-program", intent: {} } }] }
      }),
      "autonomy.rules[0].when[0].unit"
    )
    expectUnknown(
      await call("POST", "/api/v1/agents", {
        name: "a",
        autonomy: { rules: [{ id: "r", when: [{ metric: "tick", op: "gt", value: 1 }], then: { type: "transfer_sol", protocol: "system-program", intent: { dest: "x" } } }] }
      }),
      "autonomy.rules[0].then.intent.dest"
    )
    expectUnknown(await call("POST", "/api/v1/agents", { name: "a", autonomy: { enabled: true, mdoe: "paper" } }), "autonomy.mdoe")
  })

  const fill = (path: string) =>
    path.replace(/:([A-Za-z]+)/g, (_, name: string) => {
      if (name === "protocol") return "system-program"
      if (name === "version") return "1"
      if (name === "id") return "1"
      if (name === "symbol") return "SOL"
      if (name === "name") return "stage-stream"
      if (name === "keyId") return "0123456789abcdef"
      return ids[name] ?? "00000000-0000-4000-8000-000000000000"
    })
  const envelopeRoutes = routes.filter((route) => route.endpoint !== undefined && route.endpoint.raw === undefined && route.path !== "/health")

  it("refuses an unknown query parameter on every route", async () => {
    expect(envelopeRoutes.length).toBeGreaterThan(90)
    for (const route of envelopeRoutes) {
      const what = `${route.method} ${route.path}`
      const body = route.method === "GET" || route.method === "DELETE" ? undefined : {}
      expectUnknown(await call(route.method, `${fill(route.path)}?zzUnknown=1`, body), "zzUnknown", what)
    }
    expectUnknown(await call("GET", "/health?verbose=1"), "verbose")
  })

  it("refuses an unknown body field on every route that takes a body, and on every one that takes none", async () => {
    const writes = envelopeRoutes.filter((route) => route.method !== "GET")
    expect(writes.length).toBeGreaterThan(50)
    for (const route of writes) {
      expectUnknown(await call(route.method, fill(route.path), { zzUnknown: 1 }), "zzUnknown", `${route.method} ${route.path}`)
    }
    // A route that takes no body (approve takes one now: the preview's hash) names every field sent.
    const retry = await call("POST", `/api/v1/transactions/${ids.txId}/retry`, { force: true, note: "ok" })
    expectUnknown(retry, "force")
    expect(retry.body.error).toContain("no fields are accepted here (also unknown: note)")
  })

  it("refuses a body that is not JSON with 415, and reads JSON under any JSON media type", async () => {
    const post = (contentType: string | undefined, body: string) =>
      fetch(`${env.service.baseUrl}/api/v1/audit/events`, {
        method: "POST",
        headers: { "x-api-key": ADMIN_KEY, ...(contentType === undefined ? {} : { "content-type": contentType }) },
        body
      })
    const json = JSON.stringify({ eventType: "custom.strict", message: "m" })
    for (const type of ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp"]) {
      const answer = await post(type, json)
      expect(answer.status, type).toBe(415)
      expect(await answer.json()).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation", error: expect.stringMatching(/^content-type: .* is not accepted; send the body as application\/json$/) })
    }
  })
})

/** A POST through node:http, which (unlike fetch) sends no content-type unless told to. */
const postRaw = (path: string, body: string, headers: Record<string, string>) =>
  new Promise<number>((resolve, reject) => {
    const request = httpRequest(`${env.service.baseUrl}${path}`, { method: "POST", headers: { "x-api-key": ADMIN_KEY, ...headers } }, (response) => {
      response.resume()
      resolve(response.statusCode ?? 0)
    })
    request.on("error", reject)
    request.end(body)
  })

describe("JSON under any JSON media type is read", () => {
  it("takes application/json with a charset, a +json type, and a body without content-type", async () => {
    const body = JSON.stringify({ eventType: "custom.strict", message: "m" })
    expect(await postRaw("/api/v1/audit/events", body, { "content-type": "application/json; charset=utf-8" })).toBe(201)
    expect(await postRaw("/api/v1/audit/events", body, { "content-type": "application/vnd.custody+json" })).toBe(201)
    expect(await postRaw("/api/v1/audit/events", body, {})).toBe(201)
    // An empty body is `{}` whatever its type (a bodiless POST from a form-minded client).
    expect(await postRaw(`/api/v1/transactions/${ids.txId}/approve`, "", { "content-type": "application/x-www-form-urlencoded" })).not.toBe(415)
  })
})
