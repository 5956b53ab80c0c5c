/**
 * API keys issued as data (issue 36): two services on one database (two gateways, each with its own key
 * ring and LISTEN); a key issued on one works on the other within a second and stops there within a
 * second of its revocation; an expired key is refused; a rotated key's old secret works until its grace
 * ends; the secret appears in no answer after issue and in no audit event; last use, failed uses and who
 * issued and revoked are in the audit log; bad input is a 400 or 404 naming the field and changes nothing;
 * a key never grants more than its issuer holds. One service start each, on a dead ledger URL.
 */
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { LISTENER_PING } from "../../src/db/notifications.js"
import { checksummed, KEY_PATTERN } from "../../src/keys/keyFormat.js"
import { type Client, dataOf, makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"
import { sleep, waitFor } from "../support/wait.js"

const KEYS = "ops:*:all;op-a:tenant-a:keys,wallets;op-b:tenant-b:all;agents-a:tenant-a:agents,wallets;op-b-mcp:tenant-a:mcp,keys,wallets"

type IssuedKey = { id: string; secret: string }

let first: RunningService
let second: RunningService
let ops: Client
let opA: Client
let opB: Client

beforeAll(async () => {
  first = await startService({ rpcUrl: "http://127.0.0.1:9", env: { API_GATEWAY_API_KEYS: KEYS } })
  second = await startService({
    rpcUrl: "http://127.0.0.1:9",
    // Heartbeats every 300 ms: a stream whose key is revoked is closed by the next one at the latest.
    env: { API_GATEWAY_API_KEYS: KEYS, STREAM_HEARTBEAT_MS: "300" },
    reuse: { dataDir: first.dataDir + "-second", database: first.database }
  })
  ops = makeClient(first.baseUrl, { "x-api-key": "ops" })
  opA = makeClient(first.baseUrl, { "x-api-key": "op-a" })
  opB = makeClient(first.baseUrl, { "x-api-key": "op-b" })
}, 120_000)

afterAll(async () => {
  await second?.stop({ keepData: true })
  await first?.stop()
})

/** What a key may do on a service: the status of GET /wallets with it. */
const walletsStatus = async (service: RunningService, key: string) =>
  (await api(service.baseUrl, "GET", "/api/v1/wallets", undefined, { "x-api-key": key })).status

const issue = async (client: Client, body: Parameters<Client["keys"]["issue"]>[0]["body"]) => {
  const answer = await client.keys.issue({ body })
  expect(answer.status).toBe(201)
  return dataOf(answer)
}

const auditOf = async (eventType: string) =>
  dataOf(await ops.audit.list({ query: { eventType, limit: 1000 } })).events

describe("an issued key", () => {
  it("has the agck_ format, works on another gateway process within a second, and stops there within a second of revocation", async () => {
    const key = await issue(ops, { tenant: "tenant-a", scopes: ["wallets"], label: "ci deploy" })
    expect(key.secret).toMatch(KEY_PATTERN)
    expect(key.secret.startsWith(`${key.prefix}_`)).toBe(true)
    expect(key).toMatchObject({ tenantId: "tenant-a", scopes: ["wallets"], status: "active", agentId: null, label: "ci deploy", createdBy: expect.any(String) })

    await waitFor("the issued key to work on the second process", async () => (await walletsStatus(second, key.secret)) === 200, 1_000, 20)
    expect(await walletsStatus(first, key.secret)).toBe(200)

    const revoked = await ops.keys.revoke({ params: { keyId: key.id }, body: { reason: "leaked in a log" } })
    expect(revoked.status).toBe(200)
    expect(revoked.data).toMatchObject({ id: key.id, status: "revoked", revokedBy: expect.any(String) })
    await waitFor("the revoked key to be refused on the second process", async () => (await walletsStatus(second, key.secret)) === 401, 1_000, 20)
    expect(await walletsStatus(first, key.secret)).toBe(401)

    // Revoking again changes nothing (the first revocation stands).
    const again = await ops.keys.revoke({ params: { keyId: key.id }, body: {} })
    expect(again.data?.revokedAt).toBe(revoked.data?.revokedAt)
  })

  it("issued with an idempotencyKey and its answer lost: the repeat makes no second key, and its 409 names the first to rotate or revoke", async () => {
    const body = { tenant: "tenant-a", scopes: ["wallets" as const], label: "keyed", idempotencyKey: `key-${Date.now()}` }
    // every tenant's keys (the ops key reads them all); a rotation adds its successor
    const count = async () => dataOf(await ops.keys.list({ query: { limit: 1 } })).total
    const before = await count()
    // The first issue is served; its answer (and so the secret) is read by no one.
    const lost = await fetch(`${first.baseUrl}/api/v1/keys`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": "ops" }, body: JSON.stringify(body) })
    expect(lost.status).toBe(201)
    await lost.body?.cancel()

    const repeated = await ops.keys.issue({ body })
    expect(repeated.status).toBe(409)
    const id = repeated.body.error?.match(/^api key ([0-9a-f]{16}) was issued by this request/)?.[1]
    expect(id, repeated.body.error).toBeDefined()
    expect(repeated.body.error).toContain(`/api/v1/keys/${id}/rotate`)
    expect(await count()).toBe(before + 1)
    // the key it names is the one made, and can be rotated to a secret someone holds
    const rotated = await ops.keys.rotate({ params: { keyId: id! }, body: { graceSeconds: 0 } })
    expect(rotated.status).toBe(200)
    await waitFor("the rotated key to work", async () => (await walletsStatus(first, dataOf(rotated).key.secret)) === 200, 1_000, 20)

    // the key with another request is a 400 naming it; racing issues with one key make one key
    const other = await ops.keys.issue({ body: { ...body, scopes: ["wallets", "transactions"] } })
    expect(other.status).toBe(400)
    expect(other.body.error?.startsWith("idempotencyKey:"), other.body.error).toBe(true)
    const raceKey = `key-race-${Date.now()}`
    const raced = await Promise.all(Array.from({ length: 4 }, () => ops.keys.issue({ body: { ...body, idempotencyKey: raceKey } })))
    expect(raced.map((answer) => answer.status).sort()).toEqual([201, 409, 409, 409])
    expect(await count()).toBe(before + 3)
  })

  it("revoked: an open stage stream made with it is closed", async () => {
    const key = await issue(ops, { tenant: "tenant-a", scopes: ["transactions"] })
    await waitFor("the key on the second process", async () => (await api(second.baseUrl, "GET", "/api/v1/outbox/stats", undefined, { "x-api-key": key.secret })).status !== 401, 1_000, 20)
    const socket = new WebSocket(`${second.baseUrl.replace("http", "ws")}/api/v1/stream`, { headers: { "x-api-key": key.secret } })
    const messages: Array<string> = []
    socket.on("message", (data) => messages.push(data.toString()))
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve())
      socket.once("error", reject)
    })
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)))
    await ops.keys.revoke({ params: { keyId: key.id }, body: {} })
    expect(await closed).toBe(4401)
    expect(messages.at(-1)).toContain("revoked or expired")
  })

  it("is refused once expired", async () => {
    const expiresAt = Date.now() + 2_500
    const key = await issue(ops, { tenant: "tenant-a", scopes: ["wallets"], expiresAt: new Date(expiresAt).toISOString() })
    await waitFor("the key on the second process", async () => (await walletsStatus(second, key.secret)) === 200, 1_000, 20)
    await sleep(Math.max(0, expiresAt - Date.now()) + 50)
    const refused = await api(second.baseUrl, "GET", "/api/v1/wallets", undefined, { "x-api-key": key.secret })
    expect(refused).toMatchObject({ status: 401, body: { status: "failure", failedAt: "gateway", error: "Invalid API key" } })
    expect(dataOf(await ops.keys.get({ params: { keyId: key.id } })).status).toBe("expired")
  })

  it("rotated: the old secret works until the grace ends, the new one from the start", async () => {
    const old = await issue(ops, { tenant: "tenant-a", scopes: ["wallets", "keys"], label: "rotating" })
    const rotated = await ops.keys.rotate({ params: { keyId: old.id }, body: { graceSeconds: 2 } })
    expect(rotated.status).toBe(200)
    const { key, previous } = dataOf(rotated)
    expect(key).toMatchObject({ tenantId: "tenant-a", scopes: ["wallets", "keys"], label: "rotating", rotatedFrom: old.id, status: "active" })
    expect(previous).toMatchObject({ id: old.id, replacedBy: key.id, status: "active" })
    expect(key.secret).not.toBe(old.secret)
    await waitFor("the new key on the second process", async () => (await walletsStatus(second, key.secret)) === 200, 1_000, 20)
    expect(await walletsStatus(second, old.secret)).toBe(200)
    await waitFor("the old key's grace to end", async () => (await walletsStatus(second, old.secret)) === 401, 4_000, 50)
    expect(Date.now()).toBeGreaterThanOrEqual(new Date(previous.expiresAt!).getTime())
    expect(await walletsStatus(second, key.secret)).toBe(200)
    // Only an active key that was not rotated yet can be rotated.
    const twice = await ops.keys.rotate({ params: { keyId: old.id }, body: { graceSeconds: 0 } })
    expect(twice).toMatchObject({ status: 400, body: { error: `api key ${old.id} is expired: only an active key can be rotated` } })
  })
})

describe("secrets", () => {
  it("appear in the issue answer only: never in a list, a get, a revoke or an audit event", async () => {
    const key = await issue(ops, { tenant: "tenant-a", scopes: ["wallets"] })
    await walletsStatus(first, key.secret)
    await api(first.baseUrl, "GET", "/api/v1/wallets", undefined, { "x-api-key": key.secret.slice(0, -1) + "x" })
    const list = await ops.keys.list({ query: { limit: 100 } })
    const answers = [
      list,
      await ops.keys.get({ params: { keyId: key.id } }),
      await ops.keys.revoke({ params: { keyId: key.id }, body: {} }),
      await ops.audit.list({ query: { limit: 1000 } })
    ]
    const secretPart = key.secret.slice(key.prefix.length + 1)
    for (const answer of answers) {
      expect(answer.status).toBe(200)
      expect(JSON.stringify(answer.body)).not.toContain(secretPart)
    }
    const listed = dataOf(list).keys.find((listedKey) => listedKey.id === key.id)
    expect(listed).toBeDefined()
    expect(Object.keys(listed!)).not.toContain("secret")
  })
})

describe("the audit log", () => {
  it("records who issued and revoked a key, its last use, and failed uses", async () => {
    const key = await issue(ops, { tenant: "tenant-a", scopes: ["wallets"] })
    expect(await walletsStatus(first, key.secret)).toBe(200)
    // A wrong secret for a known id, and a key without the route's scope.
    const wrong = checksummed(`${key.prefix}_${"0".repeat(43)}`)
    expect(await walletsStatus(first, wrong)).toBe(401)
    expect((await api(first.baseUrl, "GET", "/api/v1/policies/00000000-0000-4000-8000-000000000001/versions", undefined, { "x-api-key": key.secret })).status).toBe(403)
    await ops.keys.revoke({ params: { keyId: key.id }, body: { reason: "done" } })

    const issued = (await auditOf("api_key.issued")).find((event) => event.metadata.keyId === key.id)
    expect(issued).toMatchObject({ tenantId: "tenant-a", category: "access", metadata: { prefix: key.prefix, scopes: ["wallets"] } })
    expect(typeof issued?.metadata.by).toBe("string")
    const revoked = (await auditOf("api_key.revoked")).find((event) => event.metadata.keyId === key.id)
    expect(revoked).toMatchObject({ tenantId: "tenant-a", metadata: { reason: "done", by: issued?.metadata.by } })

    await waitFor("the last use and the failed uses to be written", async () => {
      const used = (await auditOf("api_key.used")).some((event) => event.metadata.keyId === key.id)
      const failed = (await auditOf("api_key.use_failed")).filter((event) => event.metadata.keyId === key.id).map((event) => event.metadata.reason)
      const lastUsed = dataOf(await ops.keys.get({ params: { keyId: key.id } })).lastUsedAt
      return used && failed.includes("wrong_secret") && failed.includes("insufficient_scope") && lastUsed !== null
    }, 10_000, 200)
  })
})

describe("what a caller may issue", () => {
  it("a tenant's key issues for its own tenant only, never a scope it does not hold; an agent is of the key's tenant", async () => {
    const own = await issue(opA, { scopes: ["wallets"] })
    expect(own.tenantId).toBe("tenant-a")
    const otherTenant = await opA.keys.issue({ body: { tenant: "tenant-b", scopes: ["wallets"] } })
    expect(otherTenant).toMatchObject({ status: 403, body: { error: "tenant: this key acts for tenant 'tenant-a' and may issue keys of that tenant only" } })
    const wider = await opA.keys.issue({ body: { scopes: ["wallets", "transactions"] } })
    expect(wider).toMatchObject({ status: 403, body: { error: "scopes: this key does not hold the 'transactions' scope, so it cannot grant it" } })
    const unknownAgent = await opA.keys.issue({ body: { scopes: ["wallets"], agentId: "00000000-0000-4000-8000-00000000000a" } })
    expect(unknownAgent).toMatchObject({ status: 404, body: { error: "agent 00000000-0000-4000-8000-00000000000a not found" } })
    // A key reading every tenant must say which tenant the new key is for.
    const noTenant = await ops.keys.issue({ body: { scopes: ["wallets"] } })
    expect(noTenant).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^tenant: required/) } })
  })

  it("lists and shows keys of the caller's tenant only", async () => {
    const keyOfB = await issue(opB, { scopes: ["wallets"] })
    const listedByA = dataOf(await opA.keys.list({ query: { limit: 100 } })).keys
    expect(listedByA.every((key) => key.tenantId === "tenant-a")).toBe(true)
    expect((await opA.keys.get({ params: { keyId: keyOfB.id } })).status).toBe(404)
  })
})

describe("an agent's key issued with the agent", () => {
  it("acts as that agent only, on every process", async () => {
    const opsOfA = makeClient(first.baseUrl, { "x-api-key": "ops", "x-tenant-id": "tenant-a" })
    const created = await opsOfA.agents.create({ body: { name: "keyed agent", apiKey: { label: "bot" } } })
    expect(created.status).toBe(201)
    const agent = dataOf(created)
    const key = agent.apiKey!
    expect(key).toMatchObject({ tenantId: "tenant-a", agentId: agent.id, scopes: ["agents", "transactions", "mcp"], label: "bot", status: "active" })
    expect(key.secret).toMatch(KEY_PATTERN)

    const asAgent = makeClient(second.baseUrl, { "x-api-key": key.secret })
    await waitFor("the agent's key on the second process", async () => (await asAgent.agents.get({ params: { agentId: agent.id } })).status === 200, 1_000, 20)
    expect(dataOf(await asAgent.agents.list({})).agents.map((listed) => listed.id)).toEqual([agent.id])
    const other = dataOf(await opsOfA.agents.create({ body: { name: "another agent" } }))
    expect(other.apiKey).toBeUndefined()
    expect((await asAgent.agents.get({ params: { agentId: other.id } })).status).toBe(404)
    expect((await asAgent.agents.start({ params: { agentId: agent.id }, body: {} })).body.error).toMatch(/^Operator credential required/)
    expect((await api(second.baseUrl, "GET", "/api/v1/wallets", undefined, { "x-api-key": key.secret })).status).toBe(403)
    expect(dataOf(await ops.keys.list({ query: { agentId: agent.id } })).keys.map((listed) => listed.id)).toEqual([key.id])
  })

  it("is refused before anything is made: without the keys scope, or with a bad key request", async () => {
    const agentsOfA = makeClient(first.baseUrl, { "x-api-key": "agents-a" })
    const before = dataOf(await agentsOfA.agents.list({})).agents.length
    const walletsBefore = dataOf(await agentsOfA.wallets.list({})).total
    const noScope = await agentsOfA.agents.create({ body: { name: "no key scope", apiKey: {} } })
    expect(noScope).toMatchObject({ status: 403, body: { error: "apiKey: issuing the agent's key needs the 'keys' scope" } })
    const opsOfA = makeClient(first.baseUrl, { "x-api-key": "ops", "x-tenant-id": "tenant-a" })
    const past = await opsOfA.agents.create({ body: { name: "expired key", apiKey: { expiresAt: "2020-01-01T00:00:00Z" } } })
    expect(past).toMatchObject({ status: 400, body: { error: "apiKey.expiresAt: must be in the future" } })
    const unknownScope = await api(first.baseUrl, "POST", "/api/v1/agents", { name: "bad scope", apiKey: { scopes: ["root"] } }, { "x-api-key": "ops", "x-tenant-id": "tenant-a" })
    expect(unknownScope).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^apiKey\.scopes\[0\]: must be one of /) } })
    expect(dataOf(await agentsOfA.agents.list({})).agents.length).toBe(before)
    expect(dataOf(await agentsOfA.wallets.list({})).total).toBe(walletsBefore)
  })
})

describe("the keys tools (MCP)", () => {
  const tool = <D = unknown>(name: string, args: unknown, key = "ops") => api<D>(first.baseUrl, "POST", "/mcp/call", { tool: name, args }, { "x-api-key": key })

  it("issue, list, revoke and rotate with the caller's own key and rights", async () => {
    const listedTools = await api<Array<{ name: string; inputSchema: { required?: Array<string> } }>>(first.baseUrl, "GET", "/mcp/tools", undefined, { "x-api-key": "ops" })
    const names = listedTools.body.data.map((listed) => listed.name)
    for (const name of ["keys.issue", "keys.list", "keys.get", "keys.revoke", "keys.rotate"]) expect(names).toContain(name)

    const issued = await tool<IssuedKey>("keys.issue", { tenant: "tenant-a", scopes: ["wallets"], label: "via tool" })
    expect(issued.status).toBe(200)
    expect(issued.body.data.secret).toMatch(KEY_PATTERN)
    await waitFor("the tool's key on the second process", async () => (await walletsStatus(second, issued.body.data.secret)) === 200, 1_000, 20)

    const listed = await tool<{ keys: Array<{ id: string }> }>("keys.list", { status: "active" })
    expect(listed.body.data.keys.map((key) => key.id)).toContain(issued.body.data.id)
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.data.secret)

    const rotated = await tool<{ key: IssuedKey }>("keys.rotate", { keyId: issued.body.data.id, graceSeconds: 0 })
    expect(rotated.status).toBe(200)
    await waitFor("the old key to stop at once", async () => (await walletsStatus(second, issued.body.data.secret)) === 401, 1_000, 20)
    const revoked = await tool("keys.revoke", { keyId: rotated.body.data.key.id, reason: "tool test" })
    expect(revoked.status).toBe(200)
    await waitFor("the new key to be refused after its revocation", async () => (await walletsStatus(second, rotated.body.data.key.secret)) === 401, 1_000, 20)

    // The caller's rights hold through the tool; its arguments are strict.
    const otherTenant = await tool("keys.issue", { tenant: "tenant-b", scopes: ["wallets"] }, "op-b-mcp")
    // A gateway refusal through a tool is the tool interface's 500 carrying the refusal (docs/decisions/mcp.md).
    expect(otherTenant).toMatchObject({ status: 500, body: { error: expect.stringContaining("tenant: this key acts for tenant 'tenant-a'") } })
    const extra = await tool("keys.issue", { tenant: "tenant-a", scopes: ["wallets"], expiresAtt: "2099-01-01T00:00:00Z" })
    expect(extra).toMatchObject({ status: 400, body: { error: expect.stringContaining("args.expiresAtt") } })
  })
})

describe("bad input", () => {
  it("answers 400 or 404 naming the field, and changes nothing", async () => {
    const keyOfB = await issue(opB, { scopes: ["wallets"] })
    // Every key as it stands (last uses of earlier tests may still be written meanwhile: not a change by these requests).
    const keysNow = async () => dataOf(await ops.keys.list({ query: { limit: 100 } })).keys.map((key) => ({ ...key, lastUsedAt: undefined }))
    const before = await keysNow()

    const cases: Array<[Promise<Awaited<ReturnType<typeof api>>>, number, string | RegExp]> = [
      [api(first.baseUrl, "POST", "/api/v1/keys", { tenant: "tenant-a", scopes: ["wallets", "root"] }, { "x-api-key": "ops" }), 400, /^scopes\[1\]: must be one of wallets, /],
      [api(first.baseUrl, "POST", "/api/v1/keys", { tenant: "*", scopes: ["agents"], agentId: "00000000-0000-4000-8000-00000000000a" }, { "x-api-key": "ops" }), 400, "agentId: a key bound to an agent must name the agent's tenant, not *"],
      [api(first.baseUrl, "POST", "/api/v1/keys", { tenant: "tenant-a", scopes: ["wallets"], expiresAt: "2020-01-01T00:00:00Z" }, { "x-api-key": "ops" }), 400, "expiresAt: must be in the future"],
      [api(first.baseUrl, "POST", "/api/v1/keys", { tenant: "tenant-a", scopes: ["wallets"], expiresAt: "tomorrow" }, { "x-api-key": "ops" }), 400, /^expiresAt: must be an ISO 8601/],
      [api(first.baseUrl, "POST", "/api/v1/keys", { tenant: "tenant-a", scopes: ["wallets"], expiresAtt: "2099-01-01T00:00:00Z" }, { "x-api-key": "ops" }), 400, /^expiresAtt: /],
      [api(first.baseUrl, "POST", "/api/v1/keys", { tenant: "tenant-a", scopes: [] }, { "x-api-key": "ops" }), 400, "scopes: must name at least one scope"],
      [api(first.baseUrl, "POST", `/api/v1/keys/${keyOfB.id}/revoke`, {}, { "x-api-key": "op-a" }), 404, `api key ${keyOfB.id} not found`],
      [api(first.baseUrl, "POST", `/api/v1/keys/${keyOfB.id}/rotate`, { graceSeconds: 0 }, { "x-api-key": "op-a" }), 404, `api key ${keyOfB.id} not found`],
      [api(first.baseUrl, "POST", `/api/v1/keys/${keyOfB.id}/rotate`, { graceSeconds: -1 }, { "x-api-key": "ops" }), 400, /^graceSeconds: must be between 0 and/],
      [api(first.baseUrl, "POST", "/api/v1/keys/not-a-key/revoke", {}, { "x-api-key": "ops" }), 400, /^keyId: must be a key id/]
    ]
    for (const [answer, status, message] of cases) {
      const { status: got, body } = await answer
      expect({ got, body }).toMatchObject({ got: status, body: { status: "failure", errorCode: "VALIDATION_ERROR", data: null } })
      if (typeof message === "string") expect(body.error).toBe(message)
      else expect(body.error).toMatch(message)
    }
    expect(await keysNow()).toEqual(before)
    expect(await walletsStatus(first, keyOfB.secret)).toBe(200)
  })
})

describe("a gateway whose LISTEN connection is lost", () => {
  it("listens again at once, and learns what was issued and revoked meanwhile", async () => {
    const kept = await issue(ops, { tenant: "tenant-a", scopes: ["wallets"] })
    await waitFor("the key on the second process", async () => (await walletsStatus(second, kept.secret)) === 200, 1_000, 20)
    // The LISTEN connection of both services is cut (a PostgreSQL restart or failover does the same).
    const client = new pg.Client({ connectionString: first.database.url })
    await client.connect()
    const listeners = async (action: string) =>
      (await client.query(`SELECT ${action} FROM pg_stat_activity WHERE datname = current_database() AND (query ILIKE 'LISTEN %' OR query = $1) AND pid <> pg_backend_pid()`, [LISTENER_PING])).rows
    try {
      const cut = await listeners("pg_terminate_backend(pid)")
      expect(cut.length).toBe(2)
      await ops.keys.revoke({ params: { keyId: kept.id }, body: { reason: "revoked while LISTEN is down" } })
      const fresh = await issue(ops, { tenant: "tenant-a", scopes: ["wallets"] })
      await waitFor("the revocation on the second process", async () => (await walletsStatus(second, kept.secret)) === 401, 8_000, 100)
      await waitFor("the new key on the second process", async () => (await walletsStatus(second, fresh.secret)) === 200, 8_000, 100)
      // Both listen again on new connections, and a key issued now reaches the other within a second again.
      await waitFor("two new LISTEN connections", async () => (await listeners("pid")).length === 2, 5_000, 100)
      const after = await issue(ops, { tenant: "tenant-a", scopes: ["wallets"] })
      await waitFor("a key issued after the cut on the second process", async () => (await walletsStatus(second, after.secret)) === 200, 1_000, 20)
    } finally {
      await client.end()
    }
  })
})
