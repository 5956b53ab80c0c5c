/**
 * A service that reaches its test database through a TCP proxy (test/support/tcpProxy.ts), so a test can
 * refuse, swallow or silence the service's connections while it runs; `database.url` stays the direct way in
 * for the test's own checks.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pg from "pg"
import { afterAll, beforeAll } from "vitest"
import { createTestDatabase, type TestDatabase } from "./database.js"
import { startTestLedger } from "./ledger.js"
import { type RunningService, startService } from "./service.js"
import { startTcpProxy, type TcpProxy } from "./tcpProxy.js"
import { waitFor } from "./wait.js"

export interface ProxiedService {
  readonly database: TestDatabase
  readonly proxy: TcpProxy
  readonly service: RunningService
  /** Lets connections through again, stops the service (its database dropped), closes the proxy. */
  readonly stop: () => Promise<void>
}

export const startServiceThroughProxy = async (options: { readonly rpcUrl: string; readonly env?: Record<string, string> }): Promise<ProxiedService> => {
  const database = await createTestDatabase()
  const target = new URL(database.url)
  const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432))
  const service = await startService({
    rpcUrl: options.rpcUrl,
    ...(options.env === undefined ? {} : { env: options.env }),
    reuse: { dataDir: fs.mkdtempSync(path.join(os.tmpdir(), "custody-test-")), database: { url: proxy.urlFor(database.url), drop: database.drop } }
  })
  return {
    database,
    proxy,
    service,
    stop: async () => {
      proxy.admit()
      await service.stop()
      await proxy.close()
    }
  }
}

/** startServiceThroughProxy before the file's tests and its stop after them (as harness.ts does for a ledger); read the fields inside tests. */
export const useServiceThroughProxy = (options: { readonly rpcUrl: string; readonly env?: Record<string, string> }): ProxiedService => {
  const context = {} as { -readonly [K in keyof ProxiedService]: ProxiedService[K] }
  beforeAll(async () => {
    Object.assign(context, await startServiceThroughProxy(options))
  })
  afterAll(async () => {
    await context.stop?.()
  })
  return context
}

export interface ProxiedServiceWithLedger extends ProxiedService {
  readonly ledger: Awaited<ReturnType<typeof startTestLedger>>
  /** The test's own connection to the service's database, not through the proxy (to hold locks, read rows). */
  readonly admin: pg.Client
}

/** A ledger, the service on it through the proxy, and an administrator's connection, for a file's tests. */
export const useProxiedServiceWithLedger = (options: { readonly env?: Record<string, string> } = {}): ProxiedServiceWithLedger => {
  const context = {} as { -readonly [K in keyof ProxiedServiceWithLedger]: ProxiedServiceWithLedger[K] }
  beforeAll(async () => {
    context.ledger = await startTestLedger()
    Object.assign(context, await startServiceThroughProxy({ rpcUrl: context.ledger.rpcUrl, ...(options.env === undefined ? {} : { env: options.env }) }))
    context.admin = new pg.Client({ connectionString: context.database.url })
    await context.admin.connect()
  })
  afterAll(async () => {
    await context.admin?.end()
    await context.stop?.()
    await context.ledger?.close()
  })
  return context
}

const LOCK_WAITERS = "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'"

/**
 * Waits until `count` statements of the test's database wait for a lock (`waiter` names them for the messages).
 * Each look clears the statistics snapshot first: inside the administrator's SQL transaction, pg_stat_activity
 * would otherwise answer every look with what the first one saw.
 */
export const waitForLockWaiters = (admin: pg.Client, waiter: string, count = 1) =>
  waitFor(
    `${waiter} waiting for a lock`,
    async () => {
      await admin.query("SELECT pg_stat_clear_snapshot()")
      return (await admin.query(LOCK_WAITERS)).rowCount === count
    },
    10_000,
    20
  )

/**
 * Makes a statement of the service commit with its answer lost: `admin`, in an SQL transaction, holds a lock the
 * statement (`waiter`, for the messages) waits for; once it waits, the service's connections are silenced and
 * the lock let go (COMMIT), so PostgreSQL runs the statement to its commit and its answer has nowhere to go.
 */
export const commitWithAnswerLost = async (proxied: ProxiedService, admin: pg.Client, waiter: string) => {
  await waitForLockWaiters(admin, waiter)
  proxied.proxy.silenceOpen()
  await admin.query("COMMIT")
}

/**
 * The same set-up, but the waiting statement is ended instead (its backend terminated, so it rolls back) and
 * the lock let go (ROLLBACK): nothing was written, and the service hears nothing of it.
 */
export const rollbackWithAnswerLost = async (proxied: ProxiedService, admin: pg.Client, waiter: string) => {
  await waitForLockWaiters(admin, waiter)
  proxied.proxy.silenceOpen()
  await admin.query(`SELECT pg_terminate_backend(pid) FROM (${LOCK_WAITERS}) AS waiting`)
  await admin.query("ROLLBACK")
}
