/**
 * A pooled connection that stops answering in the middle of a statement (a failover or a dropped NAT entry
 * leaves such a socket: it never errors and never answers) is closed once its statement is found abandoned,
 * so the statement fails as a lost connection instead of waiting forever; a statement the server is still
 * running is left alone however long it takes. The pool reaches PostgreSQL through a TCP proxy that can
 * silence the connections open at a moment.
 */
import { Cause, Effect, Fiber } from "effect"
import pg from "pg"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { isConnectionLoss } from "../../src/db/connectionLoss.js"
import { SilentConnectionWatch } from "../../src/db/silentConnections.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { startTcpProxy, type TcpProxy } from "../support/tcpProxy.js"
import { sleep } from "../support/wait.js"

let database: TestDatabase
let proxy: TcpProxy
const cleanups: Array<() => Promise<unknown>> = []

beforeAll(async () => {
  database = await createTestDatabase()
  const target = new URL(database.url)
  proxy = await startTcpProxy(target.hostname, Number(target.port || 5432))
})

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined)
})

afterAll(async () => {
  await proxy?.close()
  await database?.drop()
})

/**
 * A pool through the proxy; watched when `lookup` is given (a client for the watch's own connection), as if
 * behind a connection pooler when `pooled` (the pids its connections report are not their backends').
 */
const poolThroughProxy = (watched?: { readonly checkAfterMs: number; readonly lookup: () => pg.Client; readonly pooled?: boolean }) => {
  const options: pg.PoolConfig = { connectionString: proxy.urlFor(database.url), max: 2 }
  const watch = watched === undefined ? undefined : new SilentConnectionWatch(watched.checkAfterMs, watched.lookup)
  if (watch !== undefined && watched?.pooled === true) Effect.runSync(watch.notePids(1, 2))
  const pool = new pg.Pool({ ...options, Client: watch === undefined ? pg.Client : watch.watching(pg.Client) })
  pool.on("error", () => {})
  const fiber = watch === undefined ? undefined : Effect.runFork(watch.run())
  cleanups.push(async () => {
    if (fiber !== undefined) await Effect.runPromise(Fiber.interrupt(fiber))
    await Promise.race([pool.end(), sleep(500)])
  })
  return pool
}

/** How a pending statement ended: its rows, its error, or still waiting after `withinMs`. */
const settle = async (pending: Promise<pg.QueryResult>, withinMs: number) =>
  Promise.race([
    pending.then(
      (result) => ({ outcome: "answered" as const, rows: result.rows }),
      (error: Error) => ({ outcome: "failed" as const, error })
    ),
    sleep(withinMs).then(() => ({ outcome: "waiting" as const }))
  ])

const lookupClient = () => new pg.Client({ connectionString: database.url })

/** A short statement on `pool` whose connection goes quiet while it runs (the pool's connection opened first). */
const silencedMidway = async (pool: pg.Pool) => {
  await pool.query("SELECT 1")
  const pending = pool.query("SELECT pg_sleep(0.2)")
  await sleep(50)
  proxy.silenceOpen()
  // Wrapped: an async function's result would be awaited with it.
  return { pending }
}

describe("the watch over connections that stop answering", () => {
  it("closes a connection whose answer was lost: the statement fails as a lost connection, the pool's next one runs", async () => {
    const unwatched = poolThroughProxy()
    const watched = poolThroughProxy({ checkAfterMs: 500, lookup: lookupClient })
    await Promise.all([unwatched.query("SELECT 1"), watched.query("SELECT 1")])

    const withoutWatch = unwatched.query("SELECT pg_sleep(0.3)")
    const withWatch = watched.query("SELECT pg_sleep(0.3)")
    await sleep(50)
    proxy.silenceOpen()
    const started = Date.now()

    let closedAfter = Number.POSITIVE_INFINITY
    const [seenWithout, seenWith] = await Promise.all([
      settle(withoutWatch, 6_000),
      settle(withWatch, 6_000).finally(() => (closedAfter = Date.now() - started))
    ])
    // The premise: nothing else ends such a statement.
    expect(seenWithout.outcome).toBe("waiting")
    expect(seenWith.outcome).toBe("failed")
    if (seenWith.outcome !== "failed") return
    expect(seenWith.error.message).toMatch(/Connection terminated/)
    expect(isConnectionLoss(Cause.fail(seenWith.error))).toBe(true)
    // Noticed after checkAfterMs (to a sweep), looked up, closed.
    expect(closedAfter).toBeLessThan(3_000)

    const next = await settle(watched.query("SELECT 2 AS two"), 5_000)
    expect(next).toEqual({ outcome: "answered", rows: [{ two: 2 }] })
  }, 20_000)

  it("closes the idle connections made before a lost answer too, so the next statement does not wait on one", async () => {
    const watched = poolThroughProxy({ checkAfterMs: 500, lookup: lookupClient })
    // Two connections open: one left idle in the pool, one with a statement in flight when the way goes quiet.
    await Promise.all([watched.query("SELECT pg_sleep(0.1)"), watched.query("SELECT pg_sleep(0.1)")])
    expect(watched.idleCount).toBe(2)
    const pending = watched.query("SELECT pg_sleep(0.2)")
    await sleep(50)
    proxy.silenceOpen()
    expect((await settle(pending, 5_000)).outcome).toBe("failed")
    // The idle one went with it: the next statement runs on a new connection, not on the silent one (where it
    // would wait for the watch and then fail). Answered, on the pool's one connection, is that: no clock needed.
    expect(watched.totalCount).toBe(0)
    expect(await settle(watched.query("SELECT 3 AS three"), 5_000)).toEqual({ outcome: "answered", rows: [{ three: 3 }] })
    expect(watched.totalCount).toBe(1)
  }, 20_000)

  it("leaves a slow statement alone: the server still runs it, so it is looked up and answered in full", async () => {
    let lookups = 0
    const watched = poolThroughProxy({
      checkAfterMs: 300,
      lookup: () => {
        lookups++
        return lookupClient()
      }
    })
    const seen = await settle(watched.query("SELECT pg_sleep(2), 'finished' AS done"), 10_000)
    expect(seen).toEqual({ outcome: "answered", rows: [{ pg_sleep: "", done: "finished" }] })
    expect(lookups).toBeGreaterThanOrEqual(2)
  }, 20_000)

  it("closes it too when the server cannot be reached for the lookup", async () => {
    const watched = poolThroughProxy({ checkAfterMs: 500, lookup: () => new pg.Client({ host: "127.0.0.1", port: 9, connectionTimeoutMillis: 1_000 }) })
    const { pending } = await silencedMidway(watched)
    const seen = await settle(pending, 8_000)
    expect(seen.outcome).toBe("failed")
    if (seen.outcome === "failed") expect(isConnectionLoss(Cause.fail(seen.error))).toBe(true)
  }, 20_000)

  it("gives no verdict when the server answers the lookup with an error of its own", async () => {
    const refused = new URL(database.url)
    refused.pathname = "/no_such_database"
    const watched = poolThroughProxy({ checkAfterMs: 300, lookup: () => new pg.Client({ connectionString: refused.toString() }) })
    const { pending } = await silencedMidway(watched)
    expect((await settle(pending, 2_500)).outcome).toBe("waiting")
  }, 20_000)

  it("behind a connection pooler, where pg_stat_activity cannot tell on a connection, gives no verdict while the server answers", async () => {
    const watched = poolThroughProxy({ checkAfterMs: 300, lookup: lookupClient, pooled: true })
    const { pending } = await silencedMidway(watched)
    expect((await settle(pending, 2_500)).outcome).toBe("waiting")
  }, 20_000)
})
