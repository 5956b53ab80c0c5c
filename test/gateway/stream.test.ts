/**
 * The stage stream (GET /api/v1/stream, WebSocket) against the running service: refusals answered as
 * HTTP envelopes, tenant and subscription filtering (events published straight into StageEvents),
 * heartbeats, slow or silent clients dropped while others keep receiving, and a real transfer_sol
 * whose every stage reaches its tenant's client in order.
 */
import { Effect } from "effect"
import { Keypair } from "@solana/web3.js"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { WebSocket } from "ws"
import { ActorRegistry } from "../../src/supervision/actorRegistry.js"
import { type StageEvent, StageEvents } from "../../src/pipeline/stageEvents.js"
import { startTestLedger } from "../support/ledger.js"
import type { TransactionEncoded } from "../../schemas/transaction.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit } from "../support/transactions.js"
import { ADMIN_KEY, type RunningService, startService } from "../support/service.js"
import { waitFor as pollUntil } from "../support/wait.js"

const AGENT = "3b1f9a52-6c7d-4e8f-9a0b-1c2d3e4f5a6b"
const KEYS = `${ADMIN_KEY}:*:all;key-a:tenant-a:transactions;key-b:tenant-b:transactions;key-wallets:*:wallets;key-agent:tenant-a:transactions:agent=${AGENT}`

let ledger: Awaited<ReturnType<typeof startTestLedger>>
/** Heartbeats out of the way; a small buffer bound so a stalled client is dropped quickly. */
let service: RunningService
/** Fast heartbeats, for the heartbeat and missed-pong tests. */
let beating: RunningService
const open: Array<WebSocket> = []

beforeAll(async () => {
  ledger = await startTestLedger()
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    // Clients stay open until the end of the file: many per key (the per-key bound has its own test, limits.test.ts).
    env: { API_GATEWAY_API_KEYS: KEYS, STREAM_HEARTBEAT_MS: "600000", STREAM_MAX_BUFFERED_BYTES: String(256 * 1024), STREAM_MAX_CONNECTIONS_PER_KEY: "1000" }
  })
  // Also a small event buffer, for the test of a client that falls a whole buffer behind.
  beating = await startService({ rpcUrl: ledger.rpcUrl, env: { API_GATEWAY_API_KEYS: KEYS, STREAM_HEARTBEAT_MS: "150", STAGE_EVENT_BUFFER: "16" } })
})

afterAll(async () => {
  for (const ws of open) ws.terminate()
  await service?.stop()
  await beating?.stop()
  await ledger?.close()
})

interface Client {
  readonly ws: WebSocket
  readonly messages: Array<{ type: string } & Omit<Partial<StageEvent>, "type"> & Record<string, unknown>>
  readonly closed: Promise<void>
}

type Refusal = { readonly refused: { readonly status: number; readonly body: Record<string, unknown> } }

const wsUrl = (target: RunningService, query: Record<string, string>, path = "/api/v1/stream") =>
  `${target.baseUrl.replace("http", "ws")}${path}?${new URLSearchParams(query).toString()}`

/** Connects and waits for the server's first `subscribed` message, or returns the refusal. */
const connect = (query: Record<string, string>, headers: Record<string, string> = { "x-api-key": ADMIN_KEY }, target = service) =>
  new Promise<Client | Refusal>((resolve, reject) => {
    const ws = new WebSocket(wsUrl(target, query), { headers })
    open.push(ws)
    const messages: Client["messages"] = []
    const closed = new Promise<void>((done) => ws.once("close", () => done()))
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as Record<string, unknown>
      // Flood padding is not kept: a stalled-client test sends tens of MB.
      if (typeof message.message === "string" && message.message.length > 1024) delete message.message
      messages.push(message as Client["messages"][number])
      if (messages.length === 1) resolve({ ws, messages, closed })
    })
    ws.once("unexpected-response", (_request, response) => {
      let text = ""
      response.on("data", (chunk: Buffer) => (text += chunk.toString()))
      response.on("end", () => resolve({ refused: { status: response.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> } }))
    })
    ws.once("error", reject)
  })

const connected = async (query: Record<string, string>, headers?: Record<string, string>, target = service) => {
  const result = await connect(query, headers, target)
  if ("refused" in result) throw new Error(`refused: ${JSON.stringify(result.refused)}`)
  expect(result.messages[0]).toMatchObject({ type: "subscribed" })
  return result
}

const refused = async (query: Record<string, string>, headers: Record<string, string>) => {
  const result = await connect(query, headers)
  if (!("refused" in result)) throw new Error("the upgrade was accepted")
  return result.refused
}

/** This file's events arrive fast: a finer poll and a longer default wait than the shared helper's. */
const waitFor = (what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 15_000) => pollUntil(what, condition, timeoutMs, 20)

const stageEvent = (fields: Partial<StageEvent> & { tenantId: string }): StageEvent => ({
  type: "stage",
  txId: randomUUID(),
  walletId: randomUUID(),
  agentId: null,
  status: "pending",
  stage: "validation",
  at: new Date().toISOString(),
  ...fields
})

const publish = (events: ReadonlyArray<StageEvent>, target = service) =>
  target.runtime.runPromise(Effect.flatMap(StageEvents, (hub) => Effect.forEach(events, hub.publish, { discard: true })))

const connectedClients = (target = service) =>
  target.runtime.runPromise(Effect.flatMap(ActorRegistry, (registry) => registry.get("stage-stream"))).then((actor) => actor?.queueDepth)

const txIdsOf = (client: Client) => client.messages.filter((m) => m.type === "stage").map((m) => m.txId)

describe("stage stream: upgrade refusals", () => {
  it("answers 401 without a key, 401 for an unknown key, 403 for a key without the transactions scope", async () => {
    const missing = await refused({}, {})
    expect(missing.status).toBe(401)
    expect(missing.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "gateway", error: "Missing x-api-key header" })
    expect((await refused({ apiKey: "nope" }, {})).status).toBe(401)
    const scope = await refused({}, { "x-api-key": "key-wallets" })
    expect(scope.status).toBe(403)
    expect(String(scope.body.error)).toContain("transactions")
  })

  it("answers 403 for a tenant the key is not bound to and 400 for a malformed subscription id", async () => {
    expect((await refused({ apiKey: "key-a", tenantId: "tenant-b" }, {})).status).toBe(403)
    const bad = await refused({ txId: "not-a-uuid" }, { "x-api-key": ADMIN_KEY })
    expect(bad.status).toBe(400)
    expect(String(bad.body.error)).toContain("txId")
  })

  it("accepts the key as a query parameter (browsers) and closes other upgrade paths", async () => {
    await connected({ apiKey: "key-a" }, {})
    const other = new WebSocket(wsUrl(service, {}, "/api/v1/wallets"), { headers: { "x-api-key": ADMIN_KEY } })
    open.push(other)
    await new Promise<void>((resolve) => other.once("error", () => resolve()))
    expect((await makeClient(service.baseUrl).wallets.list({ query: { limit: "1" } })).status).toBe(200)
  })
})

describe("stage stream: filtering", () => {
  it("delivers only the caller's tenant, in publication order", async () => {
    const a = await connected({}, { "x-api-key": "key-a" })
    const b = await connected({ apiKey: "key-b" }, {})
    const everyone = await connected({})
    const onlyA = await connected({ tenantId: "tenant-a" })
    const events = [
      stageEvent({ tenantId: "tenant-a" }),
      stageEvent({ tenantId: "tenant-b" }),
      stageEvent({ tenantId: "tenant-a", status: "simulating" }),
      stageEvent({ tenantId: "tenant-b", status: "confirmed" })
    ]
    await publish(events)
    await waitFor("every client's last event", () => [a, b, everyone, onlyA].every((c) => txIdsOf(c).length >= 2) && txIdsOf(everyone).length === 4)
    await publish([stageEvent({ tenantId: "tenant-c" })])
    await waitFor("the admin's fifth event", () => txIdsOf(everyone).length === 5)
    const ids = events.map((e) => e.txId)
    expect(txIdsOf(a)).toEqual([ids[0], ids[2]])
    expect(txIdsOf(onlyA)).toEqual([ids[0], ids[2]])
    expect(txIdsOf(b)).toEqual([ids[1], ids[3]])
    expect(txIdsOf(everyone).slice(0, 4)).toEqual(ids)
    expect(a.messages.every((m) => m.type !== "stage" || m.tenantId === "tenant-a")).toBe(true)
  })

  it("shows an agent's key only its own agent's events, even when it subscribes to everything", async () => {
    const agentClient = await connected({}, { "x-api-key": "key-agent" })
    const everyone = await connected({})
    const own = stageEvent({ tenantId: "tenant-a", agentId: AGENT })
    const events = [stageEvent({ tenantId: "tenant-a" }), stageEvent({ tenantId: "tenant-a", agentId: randomUUID() }), own, stageEvent({ tenantId: "tenant-b", agentId: AGENT })]
    // Naming another wallet does not widen what the key may see.
    agentClient.ws.send(JSON.stringify({ action: "subscribe", walletId: events[0].walletId, agentId: AGENT }))
    await waitFor("the subscription's acknowledgement", () => agentClient.messages.filter((m) => m.type === "subscribed").length === 2)
    await publish(events)
    await waitFor("every event at the admin", () => events.every((event) => txIdsOf(everyone).includes(event.txId)))
    await publish([stageEvent({ tenantId: "tenant-a", agentId: AGENT, status: "confirmed", txId: own.txId })])
    await waitFor("the agent's second event", () => txIdsOf(agentClient).length === 2)
    expect(txIdsOf(agentClient)).toEqual([own.txId, own.txId])
  })

  it("filters by txId, walletId and agentId from the query, and by subscribe / unsubscribe messages", async () => {
    const [tx, wallet, agent] = [randomUUID(), randomUUID(), randomUUID()]
    const byTx = await connected({ txId: tx })
    const byWalletOrAgent = await connected({ walletId: wallet, agentId: agent })
    const byMessage = await connected({ txId: randomUUID() })
    byMessage.ws.send(JSON.stringify({ action: "subscribe", walletId: wallet }))
    await waitFor("the subscribe acknowledgement", () => byMessage.messages.length === 2)
    expect(byMessage.messages[1]).toMatchObject({ type: "subscribed", subscriptions: { walletIds: [wallet] } })

    const events = [
      stageEvent({ tenantId: "t", txId: tx }),
      stageEvent({ tenantId: "t", walletId: wallet }),
      stageEvent({ tenantId: "t", agentId: agent }),
      stageEvent({ tenantId: "t" })
    ]
    const last = stageEvent({ tenantId: "t", txId: tx, walletId: wallet, agentId: agent })
    await publish([...events, last])
    await waitFor("the last event everywhere", () => [byTx, byWalletOrAgent, byMessage].every((c) => txIdsOf(c).at(-1) === last.txId))
    expect(txIdsOf(byTx)).toEqual([tx, tx])
    expect(txIdsOf(byWalletOrAgent)).toEqual([events[1]!.txId, events[2]!.txId, last.txId])
    expect(txIdsOf(byMessage)).toEqual([events[1]!.txId, last.txId])

    byMessage.ws.send(JSON.stringify({ action: "unsubscribe", walletId: wallet }))
    byMessage.ws.send("not json")
    byMessage.ws.send(JSON.stringify({ action: "subscribe", txId: "nope" }))
    await waitFor("three answers", () => byMessage.messages.filter((m) => m.type !== "stage").length === 5)
    expect(byMessage.messages.slice(-2)).toMatchObject([{ type: "error", error: "message: malformed JSON" }, { type: "error" }])
    expect(String(byMessage.messages.at(-1)!.error)).toContain("txId")
    await publish([stageEvent({ tenantId: "t", walletId: wallet }), last])
    await waitFor("the repeated last event", () => txIdsOf(byTx).length === 3)
    await waitFor("byMessage sees nothing new", () => txIdsOf(byWalletOrAgent).length === 5)
    expect(txIdsOf(byMessage)).toEqual([events[1]!.txId, last.txId])
  })

  it("holds at most 1,000 ids per connection: one more is refused naming its field and changes nothing", async () => {
    const client = await connected({ walletId: randomUUID() })
    const txIds = Array.from({ length: 999 }, () => randomUUID())
    // One at a time: each acknowledgement lists every id, and all at once would pass the buffer bound that drops a client.
    for (const txId of txIds) {
      const answered = new Promise((resolve) => client.ws.once("message", resolve))
      client.ws.send(JSON.stringify({ action: "subscribe", txId }))
      await answered
    }
    expect(client.messages).toHaveLength(1000)
    expect(client.messages.at(-1)).toMatchObject({ type: "subscribed" })
    expect((client.messages.at(-1)!.subscriptions as { txIds: Array<string> }).txIds).toHaveLength(999)

    const extra = randomUUID()
    client.ws.send(JSON.stringify({ action: "subscribe", agentId: extra }))
    // Naming an id already held adds nothing, so it is not refused.
    client.ws.send(JSON.stringify({ action: "subscribe", txId: txIds[0] }))
    await waitFor("two answers", () => client.messages.length === 1002)
    expect(client.messages[1000]).toMatchObject({ type: "error" })
    expect(String(client.messages[1000]!.error)).toMatch(/^agentId: at most 1000 ids per connection/)
    expect(client.messages[1001]).toMatchObject({ type: "subscribed", subscriptions: { agentIds: [] } })

    // Events of the refused agent do not reach it; one of its transactions does.
    const events = [stageEvent({ tenantId: "t", agentId: extra }), stageEvent({ tenantId: "t", txId: txIds[998]! })]
    await publish(events)
    await waitFor("the transaction's event", () => txIdsOf(client).includes(txIds[998]!))
    expect(txIdsOf(client)).toEqual([txIds[998]])
  })
})

describe("stage stream: a client a whole buffer behind", () => {
  it("is told of the gap and gets the current state of the transaction it named", async () => {
    const wallet = await createWallet(beating.baseUrl, 1_000_000_000)
    const created = await submit(beating.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 2_000_000 } }, undefined, "?waitMs=15000")
    expect(created.body.data.status).toBe("confirmed")
    const txId = created.body.data.id as string
    const client = await connected({ txId }, undefined, beating)

    // A hundred events in one go, faster than the client's fiber takes them from its 16-event buffer.
    await publish(Array.from({ length: 100 }, () => stageEvent({ tenantId: "t" })), beating)
    await waitFor("the gap and the current state", () => client.messages.some((m) => m.type === "stage"))
    const gapAt = client.messages.findIndex((m) => m.type === "gap")
    expect(gapAt).toBeGreaterThan(0)
    expect(String(client.messages[gapAt]!.reason)).toContain("buffer")
    expect(client.messages.filter((m) => m.type === "stage")).toEqual([expect.objectContaining({ txId, status: "confirmed", walletId: wallet.id })])
    expect(client.messages.findIndex((m) => m.type === "stage")).toBeGreaterThan(gapAt)
  })
})

describe("stage stream: liveness", () => {
  it("sends heartbeats and WebSocket pings", async () => {
    const client = await connected({}, undefined, beating)
    let pinged = false
    client.ws.on("ping", () => (pinged = true))
    await waitFor("two heartbeats", () => client.messages.filter((m) => m.type === "heartbeat").length >= 2)
    expect(pinged).toBe(true)
    expect(typeof client.messages.find((m) => m.type === "heartbeat")!.at).toBe("string")
  })

  it("drops a client that stops answering pings while an attentive one stays", async () => {
    await waitFor("no clients left from earlier tests", async () => {
      for (const ws of open) ws.terminate()
      return (await connectedClients(beating)) === 0
    })
    const attentive = await connected({}, undefined, beating)
    const silent = await connected({}, undefined, beating)
    expect(await connectedClients(beating)).toBe(2)
    silent.ws.pause()
    await waitFor("the silent client to be dropped", async () => (await connectedClients(beating)) === 1)
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(attentive.ws.readyState).toBe(WebSocket.OPEN)
    expect(await connectedClients(beating)).toBe(1)
  })

  it("drops a stalled client once its buffer passes the bound; a fast client receives everything", async () => {
    await waitFor("no clients left from earlier tests", async () => {
      for (const ws of open) ws.terminate()
      return (await connectedClients()) === 0
    })
    const fast = await connected({})
    const stalled = await connected({})
    stalled.ws.pause()
    const padding = "x".repeat(8 * 1024)
    // Publish until the stalled client is dropped: loopback socket buffers may autotune to tens of MB
    // (tcp_rmem), so how much they hide depends on the machine; 16,000 events are about 130 MB.
    let total = 0
    while ((await connectedClients()) === 2) {
      if (total >= 16_000) throw new Error("the stalled client was never dropped")
      await publish(Array.from({ length: 100 }, () => stageEvent({ tenantId: "flood", message: padding })))
      total += 100
      // The fast client reads everything before the next batch, so only the stalled one falls behind
      // (on a loaded machine a batch published on top of an unread one could exceed its bound too).
      const published = total
      await waitFor("the fast client to keep up", () => txIdsOf(fast).length === published, 30_000)
    }
    expect(await connectedClients()).toBe(1)
    await waitFor("every event at the fast client", () => txIdsOf(fast).length === total, 30_000)
    expect(fast.ws.readyState).toBe(WebSocket.OPEN)
    stalled.ws.resume()
    await stalled.closed
  })
})

describe("stage stream: a real transaction", () => {
  const asTenant = (tenant: string) => ({ "x-api-key": ADMIN_KEY, "x-tenant-id": tenant })

  const transfer = async (tenant: string) => {
    const wallet = await makeClient(service.baseUrl, asTenant(tenant)).wallets.create({ body: { autoFund: true, fundLamports: 1_000_000_000 } })
    expect(wallet.status).toBe(201)
    const created = await makeClient(service.baseUrl, asTenant(tenant)).transactions.create({ body: {
        walletId: wallet.body.data.id,
        type: "transfer_sol",
        protocol: "system-program",
        intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 }
      } })
    expect(created.status).toBe(201)
    return created.body.data.id as string
  }

  const settled = async (txId: string, tenant: string) => {
    let record: TransactionEncoded | undefined
    await waitFor(`transaction ${txId} to settle`, async () => {
      record = (await makeClient(service.baseUrl, asTenant(tenant)).transactions.get({ params: { txId } })).body.data
      return record?.status === "confirmed" || record?.status === "failed"
    }, 45_000)
    return record!
  }

  it("A WebSocket client sees every stage of its transaction in order and nothing of another tenant", async () => {
    const a = await connected({}, { "x-api-key": "key-a" })
    const b = await connected({ apiKey: "key-b" }, {})
    const [txA, txB] = await Promise.all([transfer("tenant-a"), transfer("tenant-b")])
    const [recordA, recordB] = await Promise.all([settled(txA, "tenant-a"), settled(txB, "tenant-b")])
    expect(recordA.status).toBe("confirmed")
    expect(recordB.status).toBe("confirmed")

    const statusesAt = (client: Client, txId: string) => client.messages.filter((m) => m.type === "stage" && m.txId === txId).map((m) => m.status)
    await waitFor("the confirmed stage at both clients", () => statusesAt(a, txA).at(-1) === "confirmed" && statusesAt(b, txB).at(-1) === "confirmed")
    // One message per recorded transition, in the recorded order.
    expect(statusesAt(a, txA)).toEqual(recordA.history.map((entry) => entry.status))
    expect(statusesAt(b, txB)).toEqual(recordB.history.map((entry) => entry.status))
    // Each at the time its history entry records, so a client merging the history with the stream can tell one
    // transition seen in both (the CLI's watch does).
    const stepsAt = (client: Client, txId: string) => client.messages.filter((m) => m.type === "stage" && m.txId === txId).map((m) => `${m.at} ${m.status} ${m.stage}`)
    expect(stepsAt(a, txA)).toEqual(recordA.history.map((entry) => `${entry.at} ${entry.status} ${entry.stage}`))
    expect(statusesAt(a, txA)).toEqual(expect.arrayContaining(["pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"]))
    expect(a.messages.filter((m) => m.type === "stage").every((m) => m.tenantId === "tenant-a" && m.txId === txA)).toBe(true)
    expect(b.messages.filter((m) => m.type === "stage").every((m) => m.tenantId === "tenant-b" && m.txId === txB)).toBe(true)
  })
})
