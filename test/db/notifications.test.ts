/**
 * The process's LISTEN connection (src/db/notifications.ts) on a real PostgreSQL: every subscriber of a
 * channel hears its NOTIFYs and no other channel's; a connection PostgreSQL ends (a restart, a failover,
 * an administrator) is replaced and listens on every channel again; so is one that goes quiet without an
 * error (a TCP proxy stops forwarding on it), found by its ping, or by any statement on it that goes unanswered.
 */
import { Effect, Fiber, Layer, Stream } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LISTENER_PING, Notifications, Relistened } from "../../src/db/notifications.js"
import { ActorRegistry } from "../../src/supervision/actorRegistry.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { databaseRuntime } from "../support/databaseRuntime.js"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.js"
import { sleep } from "../support/wait.js"

const ListenerLive = Notifications.Default.pipe(Layer.provideMerge(ActorRegistry.Default))
type Runtime = ReturnType<typeof databaseRuntime<Notifications | ActorRegistry, never>>

let database: TestDatabase
let admin: pg.Client

beforeAll(async () => {
  database = await createTestDatabase()
  admin = new pg.Client({ connectionString: database.url })
  await admin.connect()
})

afterAll(async () => {
  await admin?.end()
  await database?.drop()
})

/** How a subscriber's list shows `Relistened`. */
const RELISTENED = "<relistened>"

/** Payloads heard by one subscriber of `channel`, from a fiber of `runtime`. */
const subscribe = (runtime: Runtime["runtime"], channel: string) => {
  const heard: Array<string> = []
  const fiber = runtime.runFork(Effect.flatMap(Notifications, (notifications) => Stream.runForEach(notifications.listen(channel), (notice) => Effect.sync(() => void heard.push(notice === Relistened ? RELISTENED : notice)))))
  return { heard, stop: () => runtime.runPromise(Fiber.interrupt(fiber)) }
}

/** NOTIFYs `payload` on `channel` every 50 ms until every list holds it; how long that took (ms), or undefined at `withinMs`. */
const notifyUntilHeard = async (channel: string, payload: string, lists: ReadonlyArray<ReadonlyArray<string>>, withinMs: number) => {
  const started = Date.now()
  while (Date.now() - started < withinMs) {
    await admin.query("SELECT pg_notify($1, $2)", [channel, payload])
    await sleep(50)
    if (lists.every((list) => list.includes(payload))) return Date.now() - started
  }
  return undefined
}

const listenerActor = (runtime: Runtime["runtime"]) => runtime.runPromise(Effect.flatMap(ActorRegistry, (registry) => registry.get("pg-listener")))

const cutListener = async () =>
  (await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND (query ILIKE 'LISTEN %' OR query = $1) AND pid <> pg_backend_pid()", [LISTENER_PING])).rowCount

describe("the LISTEN connection", () => {
  let service: Runtime
  beforeAll(() => {
    service = databaseRuntime(database.url, ListenerLive)
  })
  afterAll(async () => {
    await service?.dispose()
  })

  it("delivers a channel's NOTIFYs to each of its subscribers, and no other channel's", async () => {
    const first = subscribe(service.runtime, "orders")
    const second = subscribe(service.runtime, "orders")
    const other = subscribe(service.runtime, "refunds")
    expect(await notifyUntilHeard("orders", "order-1", [first.heard, second.heard], 5_000)).toBeDefined()
    expect(await notifyUntilHeard("refunds", "refund-1", [other.heard], 5_000)).toBeDefined()
    expect(other.heard).not.toContain("order-1")
    expect(first.heard).not.toContain("refund-1")
    expect(first.heard).not.toContain(RELISTENED)

    // One subscriber gone: the other still hears the channel.
    await first.stop()
    expect(await notifyUntilHeard("orders", "order-2", [second.heard], 5_000)).toBeDefined()
    expect(first.heard).not.toContain("order-2")
    await Promise.all([second.stop(), other.stop()])
  })

  it("replaces a connection PostgreSQL ends, and listens on every channel again", async () => {
    const orders = subscribe(service.runtime, "orders")
    const refunds = subscribe(service.runtime, "refunds")
    expect(await notifyUntilHeard("orders", "before-cut", [orders.heard], 5_000)).toBeDefined()
    expect(await notifyUntilHeard("refunds", "before-cut", [refunds.heard], 5_000)).toBeDefined()
    const restartsBefore = (await listenerActor(service.runtime))!.restarts

    expect(await cutListener()).toBe(1)
    // Backoff 100 ms, then a new connection: heard again well within the keys' one-second promise and more.
    expect(await notifyUntilHeard("orders", "after-cut", [orders.heard], 5_000)).toBeDefined()
    expect(await notifyUntilHeard("refunds", "after-cut", [refunds.heard], 5_000)).toBeDefined()
    const actor = (await listenerActor(service.runtime))!
    expect(actor.restarts).toBe(restartsBefore + 1)
    expect(actor.lastError).toContain("terminating connection")
    // Each stream says that what was sent in between was not heard, once, after what came before and before what came after.
    for (const heard of [orders.heard, refunds.heard]) {
      expect(heard.filter((notice) => notice === RELISTENED)).toHaveLength(1)
      expect(heard.indexOf(RELISTENED)).toBeGreaterThan(heard.indexOf("before-cut"))
      expect(heard.indexOf(RELISTENED)).toBeLessThan(heard.indexOf("after-cut"))
    }
    await Promise.all([orders.stop(), refunds.stop()])
  })

  it("holds back a new connection's NOTIFYs until the channel's subscribers have heard Relistened", async () => {
    // The busy channel is listened first and fifty more after it, so NOTIFYs reach the new connection while it still LISTENs.
    const busy = subscribe(service.runtime, "busy")
    const others = Array.from({ length: 50 }, (_, index) => subscribe(service.runtime, `quiet-${index}`))
    expect(await notifyUntilHeard("busy", "ready", [busy.heard], 5_000)).toBeDefined()
    for (const [index, other] of others.entries()) expect(await notifyUntilHeard(`quiet-${index}`, "ready", [other.heard], 5_000)).toBeDefined()

    // Numbered NOTIFYs back to back, before, during and after the cut, until some are heard after Relistened.
    let sent = 0
    let sending = true
    const notifier = (async () => {
      while (sending) await admin.query("SELECT pg_notify('busy', $1)", [String(sent++)])
    })()
    await sleep(100)
    expect(await cutListener()).toBe(1)
    const started = Date.now()
    while (Date.now() - started < 10_000 && !(busy.heard.includes(RELISTENED) && busy.heard.length > busy.heard.indexOf(RELISTENED) + 20)) await sleep(20)
    sending = false
    await notifier

    // What the old connection heard is an unbroken run; whatever the gap lost is announced before anything heard after it.
    const heard = busy.heard.filter((notice) => notice !== "ready")
    const relistenedAt = heard.indexOf(RELISTENED)
    expect(relistenedAt).toBeGreaterThan(0)
    expect(heard.filter((notice) => notice === RELISTENED)).toHaveLength(1)
    const before = heard.slice(0, relistenedAt).map(Number)
    expect(before).toEqual(before.map((_, index) => index))
    const after = heard.slice(relistenedAt + 1).map(Number)
    expect(after.length).toBeGreaterThan(20)
    expect(after).toEqual(after.map((_, index) => after[0]! + index))
    await Promise.all([busy.stop(), ...others.map((other) => other.stop())])
  }, 30_000)
})

describe("a LISTEN connection gone quiet (no error, no answer)", () => {
  let proxy: TcpProxy
  let service: Runtime
  beforeAll(async () => {
    const target = new URL(database.url)
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432))
    service = databaseRuntime(proxy.urlFor(database.url), ListenerLive)
  })
  afterAll(async () => {
    await service?.dispose()
    await proxy?.close()
  })

  it("is found by its ping and replaced: NOTIFYs are heard again within 15 s", async () => {
    const orders = subscribe(service.runtime, "orders")
    expect(await notifyUntilHeard("orders", "before-silence", [orders.heard], 5_000)).toBeDefined()

    proxy.silenceOpen()
    // Nothing reaches it now, and nothing fails: only the ping (every 5 s, answered within 5 s) can tell.
    await admin.query("SELECT pg_notify('orders', 'while-silent')")
    await sleep(1_000)
    expect(orders.heard).not.toContain("while-silent")
    expect(await notifyUntilHeard("orders", "after-silence", [orders.heard], 15_000)).toBeDefined()
    const actor = (await listenerActor(service.runtime))!
    expect(actor.restarts).toBeGreaterThanOrEqual(1)
    expect(actor.lastError).toContain("no answer within")
    await orders.stop()
  }, 30_000)

  it("takes one statement timeout, not one per channel, to let go of channels while quiet (a stop after a silence)", async () => {
    const channels = ["quiet-a", "quiet-b", "quiet-c"]
    const subscribers = channels.map((channel) => subscribe(service.runtime, channel))
    for (const [index, channel] of channels.entries()) expect(await notifyUntilHeard(channel, "before", [subscribers[index]!.heard], 15_000)).toBeDefined()

    proxy.silenceOpen()
    // Each stop UNLISTENs in turn: the first waits out its 5 s and drops the connection; the others need not wait.
    const started = Date.now()
    await Promise.all(subscribers.map((subscriber) => subscriber.stop()))
    expect(Date.now() - started).toBeLessThan(9_000)

    // The replaced connection listens again.
    const later = subscribe(service.runtime, "quiet-later")
    expect(await notifyUntilHeard("quiet-later", "after", [later.heard], 15_000)).toBeDefined()
    await later.stop()
  }, 60_000)
})
