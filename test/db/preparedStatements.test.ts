import { SqlClient } from "@effect/sql"
import { Effect, Either, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { StatementNames } from "../../src/db/preparedStatements.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { databaseRuntime } from "../support/databaseRuntime.js"

/**
 * Runs `use` on the database layer as the service builds it, on one connection so every statement shares
 * its session; the layer is disposed and its DATA_DIR removed afterwards.
 */
const onDatabase = async <A>(database: TestDatabase, prepared: boolean, use: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) => {
  const { runtime, dispose } = databaseRuntime(database.url, Layer.empty, { DATABASE_POOL_SIZE: "1", DATABASE_PREPARED_STATEMENTS: String(prepared) })
  try {
    return await runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, use))
  } finally {
    await dispose()
  }
}

const prepared = (sql: SqlClient.SqlClient) =>
  sql<{ statement: string }>`SELECT statement FROM pg_prepared_statements ORDER BY prepare_time`.pipe(Effect.map((rows) => rows.map((r) => r.statement)))

describe("prepared statements", () => {
  let database: TestDatabase
  beforeAll(async () => {
    database = await createTestDatabase()
  })
  afterAll(async () => {
    await database.drop()
  })

  it("prepares a parameterised statement once per connection and reuses it, with the right answers", async () => {
    const result = await onDatabase(database, true, (sql) =>
      Effect.gen(function* () {
        const answers = []
        for (const n of [1, 2, 3]) answers.push((yield* sql<{ doubled: number }>`SELECT ${n}::int * 2 AS doubled`)[0]?.doubled)
        return { answers, statements: yield* prepared(sql) }
      })
    )
    expect(result.answers).toEqual([2, 4, 6])
    // One prepared statement for the three calls (beside the migrator's own); the catalogue read has no
    // parameters and is not prepared.
    expect(result.statements.filter((s) => s === "SELECT $1::int * 2 AS doubled")).toHaveLength(1)
    expect(result.statements.some((s) => s.includes("pg_prepared_statements"))).toBe(false)
  })

  it("prepares nothing with DATABASE_PREPARED_STATEMENTS=false", async () => {
    const statements = await onDatabase(database, false, (sql) => Effect.zipRight(sql`SELECT ${5}::int + 1 AS six`, prepared(sql)))
    expect(statements).toEqual([])
  })

  it("a statement whose result type changed under it fails once, then is prepared again", async () => {
    const result = await onDatabase(database, true, (sql) =>
      Effect.gen(function* () {
        yield* sql`CREATE TABLE prepared_probe (id int)`
        yield* sql`INSERT INTO prepared_probe VALUES (${7})`
        const read = sql<Record<string, unknown>>`SELECT * FROM prepared_probe WHERE id = ${7}`
        const before = yield* read
        // Another deployment's migration adds a column while this process holds the prepared read.
        yield* sql`ALTER TABLE prepared_probe ADD COLUMN note text`
        const during = yield* Effect.either(read)
        const after = yield* read
        return { before, during, after }
      })
    )
    expect(result.before).toEqual([{ id: 7 }])
    expect(Either.isLeft(result.during)).toBe(true)
    expect(result.after).toEqual([{ id: 7, note: null }])
  })

  it("names at most the bound's statement texts; the rest run unnamed, and a forgotten text gets a new name", () => {
    const names = new StatementNames(2)
    const a = names.nameOf("SELECT $1")
    const b = names.nameOf("SELECT $1, $2")
    expect(a).toBeDefined()
    expect(b).toBeDefined()
    expect(a).not.toEqual(b)
    expect(names.nameOf("SELECT $1")).toEqual(a)
    expect(names.nameOf("SELECT $1, $2, $3")).toBeUndefined()
    expect(names.size).toBe(2)
    names.forget("SELECT $1")
    const again = names.nameOf("SELECT $1")
    expect(again).toBeDefined()
    expect(again).not.toEqual(a)
  })
})
