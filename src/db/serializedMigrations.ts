/**
 * Migrations when several service processes start together on one new database (an API process beside
 * workers, two replicas of a rolling restart). @effect/sql's migrator creates its table with a
 * check-then-create that races: two creators, and one fails to start on a duplicate pg_type row. Its run
 * itself is serialized (one transaction that first locks that table), so creating the table first, under
 * a transaction's advisory lock, is all it needs: the others then wait on the table lock and find nothing
 * left to do. One connection at a time, so a pool of one still migrates.
 */
import * as NodeCommandExecutor from "@effect/platform-node/NodeCommandExecutor"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import { SqlClient } from "@effect/sql"
import { PgMigrator } from "@effect/sql-pg"
import { Effect, Layer } from "effect"
import { migrations } from "./migrations/index.js"

/** The advisory lock key of creating the migrations table (a constant no other lock of the service uses). */
const MIGRATIONS_TABLE_LOCK_KEY = 7_301_985_220

/** The migrator's own table, as @effect/sql's Migrator creates it on PostgreSQL. */
const createMigrationsTable = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.withTransaction(
    Effect.gen(function* () {
      yield* sql`SELECT pg_advisory_xact_lock(${MIGRATIONS_TABLE_LOCK_KEY})`
      yield* sql`CREATE TABLE IF NOT EXISTS effect_sql_migrations (
        migration_id integer primary key,
        created_at timestamp with time zone not null default now(),
        name text not null
      )`
    })
  )
)

/**
 * What PgMigrator.run asks for (a file system, paths and a command executor, for its schema dump), not
 * NodeContext: that would also build a terminal and a worker manager at every start.
 */
const MigratorPlatformLive = Layer.merge(NodePath.layer, NodeCommandExecutor.layer).pipe(Layer.provideMerge(NodeFileSystem.layer))

export const SerializedMigratorLive = Layer.effectDiscard(Effect.zipRight(createMigrationsTable, PgMigrator.run({ loader: migrations }))).pipe(
  Layer.provide(MigratorPlatformLive)
)
