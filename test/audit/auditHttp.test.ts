/**
 * Audit events over HTTP: posting stamps the caller's tenant and counts `audit_event.<type>`; the
 * query filters by every field of the spec (plus eventType), pages newest first, refuses bad input,
 * and never shows one tenant's events to another.
 */
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type EndpointInput, makeClient, type WireDataOf } from "../support/client.js"
import type { AuditApi } from "../../schemas/api/audit.js"
import { api, type RunningService, startService } from "../support/service.js"

let service: RunningService
type Headers = Record<string, string>
const OPS: Headers = { "x-api-key": "key-ops" }
const A: Headers = { "x-api-key": "key-a" }
const B: Headers = { "x-api-key": "key-b" }
const WALLETS_ONLY: Headers = { "x-api-key": "key-wallets" }

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: { API_GATEWAY_API_KEYS: "key-a:tenant-a:audit;key-b:tenant-b:audit;key-ops:*:all;key-wallets:*:wallets" }
  })
})

afterAll(async () => {
  await service?.stop()
})

const post = (body: EndpointInput<typeof AuditApi.post>["body"], headers = A) => makeClient(service.baseUrl, headers).audit.post({ body })
const query = (search: string, headers = A) => api<WireDataOf<typeof AuditApi.list>>(service.baseUrl, "GET", `/api/v1/audit/events?${search}`, undefined, headers)
const types = (events: ReadonlyArray<{ readonly eventType: string }>) => events.map((e) => e.eventType)
/**
 * Tenant A's events other than the service's own record of its key's use (`api_key.used`, written by an actor
 * every 2 s after the key's first use, so it may land in the middle of a test).
 */
const postedCount = async () => (await query("limit=100")).body.data.events.filter((e) => !e.eventType.startsWith("api_key.")).length

describe("POST /api/v1/audit/events", () => {
  it("stores the event under the caller's tenant and answers it in the [n6] shape", async () => {
    const posted = await post({ eventType: "custom.deploy", message: "deployed v2", metadata: { version: 2 } })
    expect(posted.status).toBe(201)
    expect(posted.body.status).toBe("success")
    const event = posted.body.data
    expect(event).toMatchObject({ eventType: "custom.deploy", message: "deployed v2", metadata: { version: 2 }, tenantId: "tenant-a", category: "custom" })
    expect(event.traceId).toBe(posted.body.traceId)
    expect(new Date(event.createdAt).toISOString()).toBe(event.createdAt)
    expect(event.id).toMatch(/^[0-9a-f-]{36}$/)
  })

  it("copies correlation fields from metadata to the filterable columns", async () => {
    const txId = randomUUID()
    const walletId = randomUUID()
    const posted = await post({
      eventType: "custom.linked",
      message: "linked",
      metadata: { txId, walletId, agentId: "not-a-uuid", protocol: "escrow", escrowId: "42", entityType: "escrow", category: "ops" }
    })
    expect(posted.body.data).toMatchObject({ txId, walletId, protocol: "escrow", escrowId: "42", entityType: "escrow", category: "ops" })
    expect(posted.body.data.agentId).toBeUndefined()
    expect(posted.body.data.metadata.agentId).toBe("not-a-uuid")
  })

  it("refuses a bad body with a 400 naming the field and stores nothing", async () => {
    const before = await postedCount()
    for (const [body, field] of [
      [{ message: "no type" }, "eventType"],
      [{ eventType: "", message: "x" }, "eventType"],
      [{ eventType: "x", message: "x", metadata: [1] }, "metadata"],
      [{ eventType: "x".repeat(129), message: "x" }, "eventType"]
    ] as const) {
      const refused = await api(service.baseUrl, "POST", "/api/v1/audit/events", body, A)
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
      expect(refused.body.error).toContain(field)
    }
    expect(await postedCount()).toBe(before)
  })

  it("refuses the service's own event names (any case): 400 naming eventType, nothing stored, no built-in counter moved", async () => {
    const counters = async () => (await makeClient(service.baseUrl, OPS).audit.metrics({})).body.data as Record<string, number>
    const before = { total: await postedCount(), confirmed: (await counters())["audit_event.transaction.confirmed"] ?? 0 }
    for (const eventType of ["transaction.confirmed", "Transaction.Confirmed", "agent.paused", "policy.evaluated", "approval.waiting", "transaction"]) {
      const refused = await api(service.baseUrl, "POST", "/api/v1/audit/events", { eventType, message: "forged" }, A)
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
      expect(refused.body.error).toContain("eventType")
      expect(refused.body.error).toContain("built-in event name")
    }
    expect(await postedCount()).toBe(before.total)
    expect((await counters())["audit_event.transaction.confirmed"] ?? 0).toBe(before.confirmed)
    // a name of its own that merely contains a built-in word is the tenant's
    expect((await post({ eventType: "custom.transaction.confirmed", message: "ours" })).status).toBe(201)
  })

  it("needs the audit scope", async () => {
    const refused = await post({ eventType: "x", message: "x" }, WALLETS_ONLY)
    expect(refused.status).toBe(403)
    expect(refused.body.error).toContain("audit")
  })
})

describe("GET /api/v1/audit/events", () => {
  const txId = randomUUID()
  const walletId = randomUUID()
  const agentId = randomUUID()

  beforeAll(async () => {
    // Tenant B: one event matching each filter, plus noise; posted in order so newest-first is checkable.
    await post({ eventType: "filter.tx", message: "1", metadata: { txId } }, B)
    await post({ eventType: "filter.wallet", message: "2", metadata: { walletId } }, B)
    await post({ eventType: "filter.agent", message: "3", metadata: { agentId } }, B)
    await post({ eventType: "filter.protocol", message: "4", metadata: { protocol: "spl-token" } }, B)
    await post({ eventType: "filter.escrow", message: "5", metadata: { escrowId: "777" } }, B)
    await post({ eventType: "filter.entity", message: "6", metadata: { entityType: "policy" } }, B)
    await post({ eventType: "filter.category", message: "7", metadata: { category: "security" } }, B)
    await post({ eventType: "filter.all", message: "8", metadata: { txId, walletId, category: "security" } }, B)
  })

  it("filters by each field of the spec and by eventType", async () => {
    const cases: Array<[string, Array<string>]> = [
      [`txId=${txId}`, ["filter.all", "filter.tx"]],
      [`walletId=${walletId}`, ["filter.all", "filter.wallet"]],
      [`agentId=${agentId}`, ["filter.agent"]],
      ["protocol=spl-token", ["filter.protocol"]],
      ["escrowId=777", ["filter.escrow"]],
      ["entityType=policy", ["filter.entity"]],
      ["category=security", ["filter.all", "filter.category"]],
      ["eventType=filter.wallet", ["filter.wallet"]],
      [`txId=${txId}&walletId=${walletId}&category=security`, ["filter.all"]],
      [`txId=${randomUUID()}`, []]
    ]
    for (const [search, expected] of cases) {
      const answer = await query(search, B)
      expect(answer.status, search).toBe(200)
      expect(types(answer.body.data.events), search).toEqual(expected)
      expect(answer.body.data.total, search).toBe(expected.length)
    }
  })

  it("pages newest first with limit and offset (default 100, max 1000)", async () => {
    const all = await query("limit=1000", B)
    expect(all.body.data).toMatchObject({ limit: 1000, offset: 0, total: 8 })
    expect(types(all.body.data.events)).toEqual([
      "filter.all", "filter.category", "filter.entity", "filter.escrow", "filter.protocol", "filter.agent", "filter.wallet", "filter.tx"
    ])
    const page = await query("limit=3&offset=2", B)
    expect(page.body.data).toMatchObject({ limit: 3, offset: 2, total: 8 })
    expect(types(page.body.data.events)).toEqual(["filter.entity", "filter.escrow", "filter.protocol"])
    const defaults = await query("", B)
    expect(defaults.body.data).toMatchObject({ limit: 100, offset: 0 })
    const beyond = await query("offset=50", B)
    expect(beyond.body.data).toMatchObject({ events: [], total: 8 })
  })

  it("refuses bad query values with a 400 naming the parameter", async () => {
    for (const [search, field] of [
      ["limit=0", "limit"],
      ["limit=1001", "limit"],
      ["limit=abc", "limit"],
      ["offset=-1", "offset"],
      ["txId=not-a-uuid", "txId"],
      ["walletId=123", "walletId"],
      ["agentId=x", "agentId"]
    ] as const) {
      const refused = await query(search, B)
      expect(refused.status, search).toBe(400)
      expect(refused.body.errorCode).toBe("VALIDATION_ERROR")
      expect(refused.body.error, search).toContain(field)
    }
  })

  it("never shows another tenant's events; an unbound key sees every tenant or the one it names", async () => {
    const secret = await post({ eventType: "tenant.a.secret", message: "a only", metadata: { txId } }, A)
    expect(secret.status).toBe(201)
    for (const headers of [B, { ...B, "x-tenant-id": "tenant-b" }, { ...B, "x-tenant-id": "*" }]) {
      const seen = await query(`eventType=tenant.a.secret`, headers)
      expect(seen.body.data.total).toBe(0)
      const byTx = await query(`txId=${txId}`, headers)
      expect(types(byTx.body.data.events)).not.toContain("tenant.a.secret")
    }
    const spoofed = await query("eventType=tenant.a.secret", { ...B, "x-tenant-id": "tenant-a" })
    expect(spoofed.status).toBe(403)
    expect((await query("eventType=tenant.a.secret", A)).body.data.total).toBe(1)
    expect((await query("eventType=tenant.a.secret", OPS)).body.data.total).toBe(1)
    expect((await query("eventType=tenant.a.secret", { ...OPS, "x-tenant-id": "tenant-a" })).body.data.total).toBe(1)
    expect((await query("eventType=tenant.a.secret", { ...OPS, "x-tenant-id": "tenant-b" })).body.data.total).toBe(0)
  })
})
