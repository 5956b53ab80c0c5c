/**
 * Several processes starting together on one new database (an API process beside workers, two replicas of
 * a rolling restart) all come up on a fully migrated schema: one runs the migrations, the others wait for
 * it and find nothing to do. Without the migration lock, two of them raced to create the migrator's table
 * and one failed to start (CI saw it in test/risk/valueLimitRacers.test.ts).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { migrations } from "../../src/db/migrations/index.js"
import { databaseRuntime } from "../support/databaseRuntime.js"
import { createPostgresDatabase, type FreshDatabase } from "../support/processes.js"

const STARTERS = 6

describe("migrations on a new database, several processes at once", () => {
  let database: FreshDatabase
  beforeAll(async () => {
    // An empty database (not a copy of the run's migrated template).
    database = await createPostgresDatabase()
  })
  afterAll(async () => {
    await database.drop()
  })

  it("every starter comes up on the whole schema, and each migration ran once", async () => {
    const runtimes = Array.from({ length: STARTERS }, () => databaseRuntime(database.url, Layer.empty, { DATABASE_POOL_SIZE: "2" }))
    try {
      // Each runtime builds its layer (and so migrates) on its first use; all start together.
      const seen = await Promise.all(
        runtimes.map(({ runtime }) =>
          runtime.runPromise(
            Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ tables: string }>`SELECT count(*)::text AS tables FROM information_schema.tables WHERE table_name = 'transactions'`)
          )
        )
      )
      expect(seen.map((rows) => rows[0]?.tables)).toEqual(Array.from({ length: STARTERS }, () => "1"))
      const expected = (await Effect.runPromise(migrations)).map(([id]) => id)
      const ran = await runtimes[0]!.runtime.runPromise(
        Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ migration_id: number }>`SELECT migration_id FROM effect_sql_migrations ORDER BY migration_id`)
      )
      expect(ran.map((row) => Number(row.migration_id))).toEqual(expected)
    } finally {
      await Promise.all(runtimes.map(({ dispose }) => dispose()))
    }
  }, 120_000)
})
