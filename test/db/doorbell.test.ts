/**
 * The doorbell's delayed ring (a job given back with a backoff) must not come before the job is due by the
 * database's clock: a worker it wakes claims at once, and with the poll tick far away a job it finds not yet
 * due waits for that tick (CI saw a webhook retry stall this way). Each round gives a row a due time of
 * now() + a few milliseconds, as the outbox and the webhook queue do, rings after the same delay, and on the
 * ring asks the database whether the row is due.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeDoorbell } from "../../src/db/doorbell.js"
import { decodeRows } from "../../src/db/rowDecoding.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { databaseRuntime } from "../support/databaseRuntime.js"

const ROUNDS = 300

describe("the doorbell's delayed ring", () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase()
  })
  afterAll(async () => {
    await database.drop()
  })

  it("wakes a worker only once the job it announces is due by the database's now()", async () => {
    const { runtime, dispose } = databaseRuntime(database.url, Layer.empty, { DATABASE_POOL_SIZE: "1" })
    try {
      const early = await runtime.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            const doorbell = yield* makeDoorbell(600_000)
            yield* sql`CREATE TEMPORARY TABLE due_probe (available_at timestamptz NOT NULL)`
            let early = 0
            for (let round = 0; round < ROUNDS; round++) {
              const delayMs = 1 + (round % 3)
              yield* sql`DELETE FROM due_probe`
              yield* sql`INSERT INTO due_probe VALUES (now() + ${`${delayMs} milliseconds`}::interval)`
              yield* doorbell.ringAfter(delayMs)
              yield* doorbell.waitForWork
              const [row] = yield* sql`SELECT available_at <= now() AS due FROM due_probe`.pipe(decodeRows("due_probe", Schema.Struct({ due: Schema.Boolean })))
              if (row?.due !== true) early++
            }
            return early
          })
        )
      )
      expect(early).toBe(0)
    } finally {
      await dispose()
    }
  }, 60_000)
})
