/**
 * The start's word about autovacuum: read from the server the tests run on (off on some machines' servers,
 * on in the embedded one, so CI's two passes take both branches) and from tables switched off one by one.
 */
import { Effect, Layer, Logger, LogLevel } from "effect"
import pg from "pg"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { autovacuumGaps, autovacuumWarning } from "../../src/db/autovacuumCheck.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { databaseRuntime } from "../support/databaseRuntime.js"
import { waitFor } from "../support/wait.js"

let database: TestDatabase

const onDatabase = async (statement: string) => {
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  try {
    return (await client.query(statement)).rows as Array<Record<string, string>>
  } finally {
    await client.end()
  }
}

const serverAutovacuum = async () => (await onDatabase("SHOW autovacuum"))[0]!.autovacuum

beforeEach(async () => {
  database = await createTestDatabase()
})
afterEach(async () => {
  await database.drop()
})

describe("the autovacuum check", () => {
  it("reads the server's setting and each table switched off, and words the warning after them", async () => {
    const serverOff = (await serverAutovacuum()) === "off"
    const { runtime, dispose } = databaseRuntime(database.url, Layer.empty)
    try {
      const before = await runtime.runPromise(autovacuumGaps)
      expect(before).toEqual({ serverOff, tablesOff: [] })
      expect(autovacuumWarning(before) !== undefined).toBe(serverOff)

      await onDatabase("ALTER TABLE transactions SET (autovacuum_enabled = false)")
      await onDatabase("ALTER TABLE outbox_jobs SET (autovacuum_enabled = false, fillfactor = 90)")
      const after = await runtime.runPromise(autovacuumGaps)
      expect(after).toEqual({ serverOff, tablesOff: ["outbox_jobs", "transactions"] })

      await onDatabase("ALTER TABLE transactions RESET (autovacuum_enabled)")
      expect((await runtime.runPromise(autovacuumGaps)).tablesOff).toEqual(["outbox_jobs"])
    } finally {
      await dispose()
    }
    // The server's word comes first: with it off, the tables' own settings change nothing.
    expect(autovacuumWarning({ serverOff: true, tablesOff: [] })).toMatch(/^PostgreSQL's autovacuum is off on this server: .*turn it on/)
    expect(autovacuumWarning({ serverOff: false, tablesOff: ["outbox_jobs", "transactions"] })).toMatch(/^autovacuum is off for outbox_jobs, transactions \(autovacuum_enabled = false\)/)
    expect(autovacuumWarning({ serverOff: false, tablesOff: [] })).toBeUndefined()
  })

  it("is logged once as a warning when the database layer starts", async () => {
    await onDatabase("ALTER TABLE webhook_deliveries SET (autovacuum_enabled = false)")
    const serverOff = (await serverAutovacuum()) === "off"
    const warnings: Array<string> = []
    const capture = Logger.make(({ logLevel, message }) => {
      if (LogLevel.greaterThanEqual(logLevel, LogLevel.Warning)) warnings.push(String(Array.isArray(message) ? message[0] : message))
    })
    const { runtime, dispose } = databaseRuntime(database.url, Layer.empty, {}, capture)
    try {
      await runtime.runPromise(Effect.void)
      await waitFor("the autovacuum warning", () => warnings.some((w) => w.includes("autovacuum")), 10_000)
      const said = warnings.filter((w) => w.includes("autovacuum"))
      expect(said).toHaveLength(1)
      expect(said[0]).toContain(serverOff ? "off on this server" : "autovacuum is off for webhook_deliveries")
    } finally {
      await dispose()
    }
  })
})
