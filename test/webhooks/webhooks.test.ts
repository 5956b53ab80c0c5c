/**
 * Webhooks over HTTP against a real ledger and database: subscriptions (create with the secret shown
 * once, list, get, rotate, delete; bad input a 400 naming the field; scope `webhooks`; tenancy),
 * deliveries of transaction stages, approvals waiting, agent pauses and policy denials, each verified by the
 * receiver with the `standardwebhooks` library; a receiver failing three times gets the event exactly
 * once more; a receiver that never answers leaves a dead delivery that can be redelivered.
 */
import * as os from "node:os"
import { Keypair } from "@solana/web3.js"
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startTestLedger } from "../support/ledger.js"
import type { WireDataOf } from "../support/client.js"
import type { WebhooksApi } from "../../schemas/api/webhooks.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY, api, type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"
import { startWebhookReceiver, type WebhookReceiver } from "./webhookReceiver.js"

const TENANT_A = "tenant-a-key"
const TENANT_B = "tenant-b-key"
const NO_WEBHOOKS = "no-webhooks-scope-key"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService
let receiver: WebhookReceiver

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  ledger = await startTestLedger()
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    env: {
      API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;${TENANT_A}:a:webhooks,wallets,transactions;${TENANT_B}:b:webhooks;${NO_WEBHOOKS}:a:wallets,transactions`,
      WEBHOOK_BACKOFF_MS: "50",
      WEBHOOK_MAX_BACKOFF_MS: "200",
      WEBHOOK_MAX_ATTEMPTS: "5",
      // No polling to speak of: new events arrive by NOTIFY, retries wake at their due time.
      WEBHOOK_POLL_MS: "600000",
      WEBHOOK_SECRET_KEY: "webhook-sealing-key-of-this-test"
    }
  })
})

afterAll(async () => {
  await service?.stop()
  await ledger?.close()
  await receiver?.close()
})

const as = (key: string) => ({ "x-api-key": key })
/** The webhook routes under one prefix; `D` names the data a call reads (the route's encoded success schema). */
const hooks = <D = unknown>(method: string, path: string, body?: unknown, key = ADMIN_KEY) => api<D>(service.baseUrl, method, `/api/v1/webhooks${path}`, body, as(key))

type Wire<K extends keyof typeof WebhooksApi> = WireDataOf<(typeof WebhooksApi)[K]>

const subscribe = async (eventTypes: Array<string>, key = ADMIN_KEY, url = receiver.url) => {
  const created = await hooks<Wire<"create">>("POST", "", { url, eventTypes }, key)
  expect(created.status).toBe(201)
  return created.body.data
}

const transfer = (walletId: string, lamports: number, extra: Record<string, unknown> = {}) =>
  submit(service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports }, ...extra })

const deliveriesOf = async (webhookId: string, status?: string) =>
  (await hooks<Wire<"deliveries">>("GET", `/${webhookId}/deliveries${status === undefined ? "" : `?status=${status}`}`)).body.data.deliveries

describe("webhook subscriptions", () => {
  it("shows the secret at create and rotate only, lists, gets and deletes", async () => {
    const created = await subscribe(["transaction.confirmed", "policy.denied"])
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/)
    expect(created.eventTypes).toEqual(["transaction.confirmed", "policy.denied"])

    const listed = await hooks<Wire<"list">>("GET", "")
    expect(listed.status).toBe(200)
    expect(listed.body.data.webhooks.map((w) => w.id)).toContain(created.id)
    const got = await hooks("GET", `/${created.id}`)
    expect(got.body.data).toMatchObject({ id: created.id, url: receiver.url, secretRotatedAt: null })
    expect(JSON.stringify([listed.body, got.body])).not.toContain(created.secret.slice(6))

    const rotated = await hooks<Wire<"rotateSecret">>("POST", `/${created.id}/rotate-secret`)
    expect(rotated.status).toBe(200)
    expect(rotated.body.data.secret).toMatch(/^whsec_/)
    expect(rotated.body.data.secret).not.toBe(created.secret)
    expect(JSON.stringify((await hooks("GET", `/${created.id}`)).body)).not.toContain(rotated.body.data.secret.slice(6))

    // Sealed at rest (WEBHOOK_SECRET_KEY is set): the table holds neither secret.
    const stored = await service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ secret: string }>`SELECT secret FROM webhook_subscriptions WHERE id = ${created.id}`))
    expect(stored[0].secret).toMatch(/^sealed:v1:/)
    expect(stored[0].secret).not.toContain(created.secret.slice(6))
    expect(stored[0].secret).not.toContain(rotated.body.data.secret.slice(6))

    expect((await hooks("DELETE", `/${created.id}`)).body.data).toEqual({ id: created.id, deleted: true })
    expect((await hooks("GET", `/${created.id}`)).status).toBe(404)
    expect((await hooks("DELETE", `/${created.id}`)).status).toBe(404)
  })

  it("refuses bad input with a 400 naming the field, and creates nothing", async () => {
    const before = (await hooks<Wire<"list">>("GET", "")).body.data.total
    for (const [body, field] of [
      [{ url: "ftp://example.com/x", eventTypes: ["transaction.confirmed"] }, "url"],
      [{ url: "not a url", eventTypes: ["transaction.confirmed"] }, "url"],
      [{ url: "https://user:pw@example.com/x", eventTypes: ["transaction.confirmed"] }, "url"],
      [{ eventTypes: ["transaction.confirmed"] }, "url"],
      [{ url: "https://example.com/x", eventTypes: ["transaction.confirmed", "no.such.event"] }, "eventTypes[1]"],
      [{ url: "https://example.com/x", eventTypes: [] }, "eventTypes"],
      [{ url: "https://example.com/x" }, "eventTypes"]
    ] as const) {
      const refused = await hooks("POST", "", body)
      expect(refused.status, JSON.stringify(body)).toBe(400)
      expect(refused.body.errorCode).toBe("VALIDATION_ERROR")
      expect(refused.body.error?.startsWith(`${field}:`), refused.body.error).toBe(true)
    }
    expect((await hooks<Wire<"list">>("GET", "")).body.data.total).toBe(before)
    expect((await hooks("GET", "/not-a-uuid")).status).toBe(400)
    const some = await subscribe(["transaction.failed"])
    const badStatus = await hooks("GET", `/${some.id}/deliveries?status=lost`)
    expect(badStatus.status).toBe(400)
    expect(badStatus.body.error).toMatch(/^status:/)
    await hooks("DELETE", `/${some.id}`)
  })

  it("refuses a URL that targets the service itself (loopback, its names, this machine's addresses, on a port it listens on): 400 naming url, nothing created", async () => {
    const before = (await hooks<Wire<"list">>("GET", "")).body.data.total
    const port = new URL(service.baseUrl).port
    const ownInterfaces = Object.values(os.networkInterfaces()).flatMap((entries) => entries ?? []).filter((entry) => entry.family === "IPv4" && !entry.internal)
    const targets = [
      `http://127.0.0.1:${port}/api/v1/wallets`, `http://localhost:${port}/`, `http://[::1]:${port}/x`, `http://0.0.0.0:${port}/`, `http://127.0.0.2:${port}/`,
      ...ownInterfaces.map((entry) => `http://${entry.address}:${port}/`)
    ]
    for (const url of targets) {
      const refused = await hooks("POST", "", { url, eventTypes: ["transaction.confirmed"] })
      expect(refused.status, url).toBe(400)
      expect(refused.body.errorCode).toBe("VALIDATION_ERROR")
      expect(refused.body.error, url).toMatch(/^url: .* is this service's own address/)
    }
    expect((await hooks<Wire<"list">>("GET", "")).body.data.total).toBe(before)
    // this machine on a port the service does not listen on (a receiver beside it) is fine
    const beside = await subscribe(["transaction.failed"], ADMIN_KEY, receiver.url.replace("127.0.0.1", "localhost"))
    await hooks("DELETE", `/${beside.id}`)
  })

  it("needs the webhooks scope, and keeps each tenant's subscriptions to itself", async () => {
    expect((await hooks<Wire<"list">>("GET", "", undefined, NO_WEBHOOKS)).status).toBe(403)
    const mine = await subscribe(["agent.paused"], TENANT_A)
    expect((await hooks("GET", `/${mine.id}`, undefined, TENANT_B)).status).toBe(404)
    expect((await hooks("POST", `/${mine.id}/rotate-secret`, undefined, TENANT_B)).status).toBe(404)
    expect((await hooks("DELETE", `/${mine.id}`, undefined, TENANT_B)).status).toBe(404)
    const theirs = (await hooks<Wire<"list">>("GET", "", undefined, TENANT_B)).body.data.webhooks
    expect(theirs.map((w) => w.id)).not.toContain(mine.id)
    expect((await hooks<Wire<"get">>("GET", `/${mine.id}`, undefined, TENANT_A)).body.data.tenantId).toBe("a")
    await hooks("DELETE", `/${mine.id}`, undefined, TENANT_A)
  })
})

describe("webhook deliveries", () => {
  it("delivers a transfer's stages, approvals waiting, agent pauses and policy denials, each verified by standardwebhooks", async () => {
    const subscription = await subscribe([
      "transaction.created", "transaction.built", "transaction.simulated", "transaction.policy_evaluated",
      "transaction.signed", "transaction.submitted", "transaction.confirmed", "transaction.failed", "approval.waiting", "policy.denied", "agent.paused"
    ])
    receiver.setSecrets([subscription.secret])
    const wallet = await createWallet(service.baseUrl, 1_000_000_000)

    const confirmed = await transfer(wallet.id, 1_000_000)
    expect((await waitSettled(service.baseUrl, confirmed.body.data.id)).body.data.status).toBe("confirmed")
    const gated = await transfer(wallet.id, 1_000_000, { requireApproval: true })
    expect((await waitSettled(service.baseUrl, gated.body.data.id)).body.data.status).toBe("approval_gate")
    await makeClient(service.baseUrl).policies.create({ body: { walletId: wallet.id, name: "tiny", rules: [{ type: "spending_limit", maxLamportsPerDay: 1_000 }] } })
    const denied = await transfer(wallet.id, 1_000_000)
    expect((await waitSettled(service.baseUrl, denied.body.data.id)).body.data).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION" })

    const agent = (await makeClient(service.baseUrl).agents.create({ body: { name: "paused-by-operator" } })).body.data
    expect((await makeClient(service.baseUrl).agents.start({ params: { agentId: agent.id }, body: {} })).status).toBe(200)
    expect((await makeClient(service.baseUrl).agents.pause({ params: { agentId: agent.id }, body: { reason: "maintenance" } })).status).toBe(200)

    const typesOf = (txId: string) => receiver.accepted().filter((a) => a.payload?.data.txId === txId).map((a) => a.payload?.type)
    await waitFor("the confirmed transfer's stage deliveries", () => typesOf(confirmed.body.data.id).includes("transaction.confirmed"), 20_000)
    await waitFor("approval.waiting", () => typesOf(gated.body.data.id).includes("approval.waiting"), 20_000)
    await waitFor("policy.denied", () => typesOf(denied.body.data.id).includes("policy.denied"), 20_000)

    await waitFor("agent.paused", () => receiver.accepted().some((a) => a.payload?.type === "agent.paused" && a.payload.data.agentId === agent.id), 20_000)

    expect(new Set(typesOf(confirmed.body.data.id))).toEqual(new Set([
      "transaction.created", "transaction.built", "transaction.simulated", "transaction.policy_evaluated", "transaction.signed",
      "transaction.submitted", "transaction.confirmed"
    ]))
    await waitFor("the denied transfer's failure", () => typesOf(denied.body.data.id).includes("transaction.failed"), 20_000)
    // Every request the receiver got was signed with the subscription's secret.
    expect(receiver.attempts.every((a) => a.verified)).toBe(true)
    const confirmation = receiver.accepted().find((a) => a.payload?.type === "transaction.confirmed" && a.payload.data.txId === confirmed.body.data.id)
    expect(confirmation?.payload?.data).toMatchObject({ tenantId: "default", walletId: wallet.id, traceId: confirmed.body.traceId })
    expect(confirmation?.webhookId).toMatch(/^[0-9a-f-]{36}$/)
    // approval.waiting carries what the approver will judge: the preview and its hash, as the record has them (issue 31)
    const waiting = receiver.accepted().find((a) => a.payload?.type === "approval.waiting" && a.payload.data.txId === gated.body.data.id)
    const record = (await makeClient(service.baseUrl).transactions.get({ params: { txId: gated.body.data.id } })).data
    expect(waiting?.payload?.data.metadata).toMatchObject({
      decision: "require_approval", previewHash: record?.approval?.previewHash, approvalsRequired: 1,
      preview: { summary: record?.approval?.preview?.summary, riskTier: "low", balanceChanges: [expect.objectContaining({ symbol: "SOL" })] }
    })
    await hooks("DELETE", `/${subscription.id}`)
  })

  it("a create whose answer was lost, sent again with its idempotencyKey, answers the one subscription and the secret its deliveries verify with", async () => {
    const own = await startWebhookReceiver()
    try {
      const body = { url: own.url, eventTypes: ["transaction.confirmed"], idempotencyKey: `hooks-${Date.now()}` }
      const before = (await hooks<Wire<"list">>("GET", "", undefined, TENANT_A)).body.data.webhooks.length
      // The first create is served; its answer is read by no one (a dropped connection, a timed-out client).
      const lost = await fetch(`${service.baseUrl}/api/v1/webhooks`, { method: "POST", headers: { "content-type": "application/json", ...as(TENANT_A) }, body: JSON.stringify(body) })
      expect(lost.status).toBe(201)
      await lost.body?.cancel()

      const repeated = await hooks<Wire<"create">>("POST", "", body, TENANT_A)
      expect(repeated.status).toBe(200)
      expect(repeated.body.data).toMatchObject({ url: own.url, eventTypes: ["transaction.confirmed"], tenantId: "a" })
      expect(repeated.body.data.secret).toMatch(/^whsec_/)
      const listed = (await hooks<Wire<"list">>("GET", "", undefined, TENANT_A)).body.data.webhooks
      expect(listed.length).toBe(before + 1)
      expect(listed.filter((w) => w.url === own.url).map((w) => w.id)).toEqual([repeated.body.data.id])
      // the same key with another request changes nothing; another tenant's key of the same name is its own
      const other = await hooks("POST", "", { ...body, eventTypes: ["policy.denied"] }, TENANT_A)
      expect(other.status).toBe(400)
      expect(other.body.error?.startsWith("idempotencyKey:"), other.body.error).toBe(true)
      expect((await hooks<Wire<"list">>("GET", "", undefined, TENANT_A)).body.data.webhooks.length).toBe(before + 1)
      const theirs = await hooks<Wire<"create">>("POST", "", body, TENANT_B)
      expect(theirs.status).toBe(201)
      expect(theirs.body.data.id).not.toBe(repeated.body.data.id)
      await hooks("DELETE", `/${theirs.body.data.id}`, undefined, TENANT_B)

      // The secret shown again is the one deliveries are signed with.
      own.setSecrets([repeated.body.data.secret])
      const wallet = await createWallet(service.baseUrl, 1_000_000_000, as(TENANT_A))
      const confirmed = await submit(service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 } }, as(TENANT_A))
      expect((await waitSettled(service.baseUrl, confirmed.body.data.id, 30_000, as(TENANT_A))).data.status).toBe("confirmed")
      await waitFor("the confirmation delivered and verified", () => own.accepted().some((a) => a.payload?.type === "transaction.confirmed" && a.payload.data.txId === confirmed.body.data.id), 20_000)
      expect(own.attempts.every((a) => a.verified)).toBe(true)
      await hooks("DELETE", `/${repeated.body.data.id}`, undefined, TENANT_A)
    } finally {
      await own.close()
    }
  })

  it("a receiver failing three times then recovering gets the event exactly once more", async () => {
    const subscription = await subscribe(["transaction.created"])
    receiver.setSecrets([subscription.secret])
    const wallet = await createWallet(service.baseUrl, 1_000_000_000)
    receiver.failTimes(3)
    const first = await transfer(wallet.id, 1_000)
    const isFirst = (a: { payload?: { data: Record<string, any> } }) => a.payload?.data.txId === first.body.data.id
    await waitFor("the first event accepted", () => receiver.accepted().some(isFirst), 20_000)

    // A later event is delivered after it: had the first been sent again, it would have come before.
    const second = await transfer(wallet.id, 1_000)
    await waitFor("the second event accepted", () => receiver.accepted().some((a) => a.payload?.data.txId === second.body.data.id), 20_000)
    const attempts = receiver.attempts.filter(isFirst)
    expect(attempts.map((a) => a.answered)).toEqual([500, 500, 500, 204])
    expect(new Set(attempts.map((a) => a.webhookId)).size).toBe(1)
    const [delivery] = (await deliveriesOf(subscription.id)).filter((d) => expect.objectContaining({ data: expect.objectContaining({ txId: first.body.data.id }) }).asymmetricMatch(d.payload))
    expect(delivery).toMatchObject({ status: "delivered", attempts: 4, lastStatusCode: 204 })
    await hooks("DELETE", `/${subscription.id}`)
  })

  it("never delivers to the service itself, whatever a stored URL says: each attempt refused before connecting, the gateway untouched", async () => {
    const port = new URL(service.baseUrl).port
    const literal = await subscribe(["transaction.created"])
    const named = await subscribe(["transaction.created"])
    // as if stored before the rule, or a name that resolves here only later
    await service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
      UPDATE webhook_subscriptions SET url = CASE WHEN id = ${literal.id} THEN ${`http://127.0.0.1:${port}/api/v1/wallets`} ELSE ${`http://localhost:${port}/api/v1/wallets`} END
      WHERE id IN (${literal.id}, ${named.id})`))
    const wallet = await createWallet(service.baseUrl, 1_000_000_000)
    await transfer(wallet.id, 1_000)
    for (const subscription of [literal, named]) {
      let dead: Awaited<ReturnType<typeof deliveriesOf>> = []
      await waitFor("a dead self-delivery", async () => (dead = await deliveriesOf(subscription.id, "dead")).length === 1, 30_000)
      expect(dead[0]).toMatchObject({ attempts: 5, lastStatusCode: null })
      expect(dead[0].lastError).toMatch(/^refused: .* is this service's own address/)
      await hooks("DELETE", `/${subscription.id}`)
    }
    // no delivery reached the gateway, so loopback was never counted as failing authentication
    expect((await hooks<Wire<"list">>("GET", "")).status).toBe(200)
  })

  it("after the last attempt a delivery is dead, visible, and can be redelivered", async () => {
    const subscription = await subscribe(["transaction.created"])
    receiver.setSecrets([subscription.secret])
    const wallet = await createWallet(service.baseUrl, 1_000_000_000)
    receiver.setFailAlways(true)
    const created = await transfer(wallet.id, 1_000)
    let dead: Awaited<ReturnType<typeof deliveriesOf>> = []
    await waitFor("a dead delivery", async () => (dead = await deliveriesOf(subscription.id, "dead")).length === 1, 30_000)
    expect(dead[0]).toMatchObject({ eventType: "transaction.created", attempts: 5, lastStatusCode: 500, payload: { data: { txId: created.body.data.id } } })
    expect(receiver.attempts.filter((a) => a.webhookId === dead[0].id)).toHaveLength(5)

    receiver.setFailAlways(false)
    const redelivered = await hooks("POST", `/${subscription.id}/deliveries/${dead[0].id}/redeliver`)
    expect(redelivered.status).toBe(202)
    await waitFor("the redelivery accepted", () => receiver.accepted().some((a) => a.webhookId === dead[0].id), 20_000)
    // Recorded delivered right after the receiver's 200 (which the receiver holds first).
    await waitFor("the redelivery recorded", async () => (await deliveriesOf(subscription.id, "delivered")).length > 0, 10_000)
    expect((await deliveriesOf(subscription.id, "delivered")).map((d) => d.id)).toEqual([dead[0].id])
    expect((await hooks("POST", `/${subscription.id}/deliveries/${dead[0].id}/redeliver`)).status).toBe(400)
    const counters = (await makeClient(service.baseUrl).audit.metrics({})).body.data as Record<string, number>
    expect(counters["webhook.deliveries.dead"]).toBeGreaterThanOrEqual(1)
    expect(counters["webhook.deliveries.failed_attempt"]).toBeGreaterThanOrEqual(5)
    expect(counters["webhook.deliveries.delivered"]).toBeGreaterThanOrEqual(1)
    await hooks("DELETE", `/${subscription.id}`)
  })
})
