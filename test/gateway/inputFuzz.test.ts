/**
 * A property-based fuzz (fast-check) of every POST and PUT route of the gateway, read from `routes` in
 * src/app.ts so a new route is covered without touching this file: adversarial bodies (deep nesting,
 * NUL and unpaired surrogates, amounts past u64, wrong types, near-valid field names and values),
 * query strings and path parameters. Properties: no answer is a 5xx; every answer is the envelope;
 * every 400 names its field; a refused request (4xx) creates or changes no row of any table.
 */
import fc from "fast-check"
import { beforeAll, describe, expect, it } from "vitest"
import { PROTOCOLS } from "../../schemas/protocol.js"
import { routes } from "../../src/app.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY } from "../support/service.js"
import { changedTables, settledDigests, tableDigests, type TableDigests } from "../support/tableDigest.js"

/** Runs per route: about 8 x 37 requests in all, each followed by a digest of every table. */
const RUNS_PER_ROUTE = 8
const env = useServiceWithLedger({ env: { AGENT_SCHEDULER_ENABLED: "false" } })
const ids: Record<string, string> = {}

beforeAll(async () => {
  const base = env.service.baseUrl
  ids.walletId = (await makeClient(base).wallets.create({ body: { label: "fuzz" } })).body.data.id
  ids.agentId = (await makeClient(base).agents.create({ body: { name: "fuzz", walletId: ids.walletId, budgetLamports: 1_000 } })).body.data.id
  ids.policyId = (await makeClient(base).policies.create({ body: { walletId: ids.walletId, name: "fuzz", rules: [] } })).body.data.id
})

// ---- arbitraries ------------------------------------------------------------------------------

const ADDRESS = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin"
const FIELDS = [
  "walletId", "agentId", "type", "protocol", "intent", "destination", "lamports", "amount", "mint", "memo", "label", "autoFund",
  "fundLamports", "name", "rules", "maxLamportsPerTx", "maxLamportsPerDay", "eventType", "message", "metadata", "value", "enabled",
  "failureRates", "latencyMs", "targetAgentId", "sourceAgentId", "reason", "budgetLamports", "allowedIntents", "allowedProtocols",
  "executionMode", "ttlSeconds", "manifest", "targetVersion", "mode", "steps", "idempotencyKey", "gasless", "amountLamports",
  "slippageBps", "maxSlippageBps", "allowedPools", "counterparty", "arbiter", "deadline", "winnerIsCreator", "milestones", "active",
  "__proto__", "constructor"
]

const nastyText = fc.oneof(
  fc.constantFrom("", "\u0000", "a\u0000b", "\ud800", "\udfff", "x\ud83d", "\ud83d\ude00", "%00", "../..", "' OR 1=1 --", "x".repeat(5_000), "\u202e", "null", "NaN"),
  fc.string({ maxLength: 40, unit: "binary" }),
  fc.string({ maxLength: 20 })
)
const nastyNumber = fc.oneof(
  fc.constantFrom(0, -1, 1, 1.5, 1e308, -1e308, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 10_000_000_001, 2 ** 64),
  fc.integer(),
  fc.double({ noNaN: true })
)
const nastyAmountText = fc.constantFrom("18446744073709551615", "18446744073709551616", "99999999999999999999999999999", "-1", "1e3", "0x10", " 1", "01")
const plausible = fc.oneof(
  fc.constant(ids).map(() => ids.walletId),
  fc.constant(null).map(() => ids.agentId),
  fc.uuid(),
  fc.constantFrom(ADDRESS, "transfer_sol", "transfer_spl", "swap", "treasury_allocate", "autonomous", "supervised", "safe", "force", ...PROTOCOLS)
)
const leaf = fc.oneof(nastyText, nastyNumber, nastyAmountText, plausible, fc.boolean(), fc.constant(null))
const value: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.array(tie("value"), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.constantFrom(...FIELDS), nastyText), tie("value"), { maxKeys: 5 })
  )
})).value

/** An object with the routes' own field names, so validation goes past the first missing field. */
const fieldObject = fc.dictionary(fc.constantFrom(...FIELDS), value, { minKeys: 1, maxKeys: 8 })
const deep = fc.integer({ min: 30, max: 5_000 }).map((depth) => `${'{"a":['.repeat(depth)}1${"]}".repeat(depth)}`)
const rawBody = fc.oneof(fc.constantFrom("{", "[", "nul", "\"\\ud800\"", "{\"a\":\"\\u0000\"}", "1e999999", "[]", "\"\"", "0"), fc.string({ maxLength: 30 }), deep)
const body = fc.oneof(
  fieldObject.map((object) => JSON.stringify(object)),
  value.map((v) => JSON.stringify(v) ?? "null"),
  rawBody,
  fc.constant(undefined)
)

/** A URL-safe form of any text (a lone surrogate cannot be percent-encoded as UTF-8, so it goes raw as CESU bytes). */
const encode = (text: string) => {
  try {
    return encodeURIComponent(text)
  } catch {
    return "%ED%A0%80"
  }
}
const pathValue = (name: string) =>
  fc.oneof(
    fc.constant(name).map((n) => (n === "protocol" ? "system-program" : ids[n] ?? "1")),
    fc.uuid(),
    fc.constantFrom(...PROTOCOLS, "%00", "%ED%A0%80", "%", "%zz", "..", "1", "18446744073709551616", "-1", "x".repeat(100)),
    nastyText.filter((t) => t !== "").map(encode)
  )
const query = fc.dictionary(fc.constantFrom("limit", "offset", "waitMs", "status", "publicKey", "eventType", "txId"), nastyText.map(encode), { maxKeys: 3 })

const requestFor = (path: string) => {
  const names = [...path.matchAll(/:([A-Za-z]+)/g)].map((match) => match[1])
  return fc.record({
    params: fc.tuple(...names.map(pathValue)) as fc.Arbitrary<Array<string>>,
    query,
    body
  }).map(({ params, query, body }) => {
    let url = path
    names.forEach((name, index) => {
      url = url.replace(`:${name}`, params[index])
    })
    const search = Object.entries(query).map(([key, v]) => `${key}=${v}`).join("&")
    return { url: search === "" ? url : `${url}?${search}`, body }
  })
}

// ---- the property -----------------------------------------------------------------------------

const ENVELOPE_CODES = ["VALIDATION_ERROR", "POLICY_VIOLATION", "PIPELINE_ERROR", "CONFIRMATION_FAILED"]
/** A 400 for bad input names the field (`field: ...`); an InvalidState refusal names the resource and its state instead. */
const NAMES_FIELD = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])*: \S/
const STATE_REFUSAL = /^(cannot \w+ an? \w+ that is \w+|agent \S+ is paused|migration refused|transaction \S+ (is|changed|no longer))/

const send = async (method: string, url: string, text: string | undefined) => {
  const response = await fetch(env.service.baseUrl + url, {
    method,
    headers: { "x-api-key": ADMIN_KEY, ...(text === undefined ? {} : { "content-type": "application/json" }) },
    ...(text === undefined ? {} : { body: text })
  })
  const raw = await response.text()
  let json: any
  try {
    json = JSON.parse(raw)
  } catch {
    json = { unparsable: raw.slice(0, 200) }
  }
  return { status: response.status, body: json }
}

/** Routes that answer in another protocol's own format: POST /mcp is the Model Context Protocol's JSON-RPC endpoint. */
const MCP_PROTOCOL_ROUTES = new Set(["/mcp"])

const writeRoutes = routes.filter((route) => route.method === "POST" || route.method === "PUT")

describe("fuzz of every POST/PUT route", () => {
  it("covers the routes of src/app.ts", () => {
    expect(writeRoutes.length).toBeGreaterThanOrEqual(37)
  })

  let state: TableDigests
  for (const route of writeRoutes) {
    it(`${route.method} ${route.path}: no 5xx, the envelope, a 400 names its field, a refusal changes nothing`, async () => {
      state ??= await settledDigests(env.service)
      await fc.assert(
        fc.asyncProperty(requestFor(route.path), async ({ url, body: text }) => {
          const before = state
          const reply = await send(route.method, url, text)
          const what = `${route.method} ${url} ${String(text).slice(0, 300)} -> ${reply.status} ${JSON.stringify(reply.body).slice(0, 400)}`
          expect(reply.status, what).toBeLessThan(500)
          if (MCP_PROTOCOL_ROUTES.has(route.path)) {
            // The MCP endpoint speaks JSON-RPC (the MCP spec's answers, not our envelope): a refusal is a
            // JSON-RPC error, or the gateway's own envelope when its input check refused the body first;
            // either way it changes nothing.
            if (reply.status >= 400) {
              const jsonRpcError = reply.body?.jsonrpc === "2.0" && typeof reply.body?.error?.code === "number"
              const gatewayRefusal = reply.body?.status === "failure" && ENVELOPE_CODES.includes(reply.body?.errorCode)
              expect(jsonRpcError || gatewayRefusal, what).toBe(true)
              state = await tableDigests(env.service)
              expect(changedTables(before, state), what).toEqual([])
            } else {
              state = await settledDigests(env.service)
            }
            return
          }
          expect(["success", "failure"], what).toContain(reply.body.status)
          if (reply.status >= 400) {
            expect(reply.body.status, what).toBe("failure")
            expect(ENVELOPE_CODES, what).toContain(reply.body.errorCode)
            expect(reply.body.error, what).toBeTypeOf("string")
            if (reply.status === 400) expect(NAMES_FIELD.test(reply.body.error) || STATE_REFUSAL.test(reply.body.error), what).toBe(true)
            state = await tableDigests(env.service)
            expect(changedTables(before, state), what).toEqual([])
          } else {
            // Work an accepted request started in the background lands before the next comparison.
            state = await settledDigests(env.service)
          }
        }),
        { numRuns: RUNS_PER_ROUTE, endOnFailure: true }
      )
    })
  }
})
