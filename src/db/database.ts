/**
 * The database layer: `@effect/sql-pg` against DATABASE_URL, or against the embedded PGlite when it
 * is unset; migrations run at start by PgMigrator.
 */
import { NodeContext } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Layer, Option } from "effect"
import * as path from "node:path"
import { AppConfig } from "../config.js"
import { startEmbeddedDatabase } from "./embedded.js"
import { migrations } from "./migrations/index.js"

/** int8 and numeric come back as strings from node-postgres: keep them exact, convert at the repository edge. */
const clientOptions = {
  transformJson: false,
  applicationName: "agent-custody"
} as const

/** Whether the database is the embedded PGlite (one connection, no LISTEN). */
export class DatabaseMode extends Effect.Service<DatabaseMode>()("DatabaseMode", {
  succeed: { embedded: false as boolean }
}) {}

const PgClientLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) {
      return Layer.merge(
        PgClient.layer({ ...clientOptions, url: config.databaseUrl.value, maxConnections: config.databasePoolSize }),
        Layer.succeed(DatabaseMode, new DatabaseMode({ embedded: false }))
      )
    }
    const embedded = yield* startEmbeddedDatabase(path.join(config.dataDir, "pglite"))
    return Layer.merge(
      PgClient.layer({
        ...clientOptions,
        host: embedded.host,
        port: embedded.port,
        username: "postgres",
        database: "postgres",
        maxConnections: 1,
        minConnections: 1
      }),
      Layer.succeed(DatabaseMode, new DatabaseMode({ embedded: true }))
    )
  })
)

const MigratorLive = PgMigrator.layer({ loader: migrations }).pipe(Layer.provide(NodeContext.layer))

/** SqlClient + PgClient + DatabaseMode, migrated. */
export const DatabaseLive = MigratorLive.pipe(Layer.provideMerge(PgClientLive))
