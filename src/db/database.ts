/**
 * The database layer: `@effect/sql-pg` against DATABASE_URL, or against the embedded PostgreSQL server
 * under DATA_DIR when it is unset (embeddedServer.ts); migrations run at start by PgMigrator.
 */
import { NodeContext } from "@effect/platform-node"
import { PgClient, PgMigrator } from "@effect/sql-pg"
import { Effect, Layer, Option, Redacted } from "effect"
import { AppConfig } from "../config.js"
import { openEmbeddedServer } from "./embeddedServer.js"
import { migrations } from "./migrations/index.js"

/** int8 and numeric come back as strings from node-postgres: keep them exact, convert at the repository edge. */
const clientOptions = {
  transformJson: false,
  applicationName: "agent-custody"
} as const

/** The embedded server of DATA_DIR, started or joined; stopped when this process leaves last (after its pool closed). */
const embeddedServer = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => openEmbeddedServer(dataDir),
      catch: (cause) => new Error(`could not start the embedded PostgreSQL under ${dataDir}: ${cause instanceof Error ? cause.message : String(cause)}`)
    }).pipe(Effect.orDie),
    (opened) => Effect.promise(() => opened.release())
  ).pipe(Effect.map((opened) => opened.server))

const PgClientLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isSome(config.databaseUrl)) {
      return PgClient.layer({ ...clientOptions, url: config.databaseUrl.value, maxConnections: config.databasePoolSize })
    }
    const server = yield* embeddedServer(config.dataDir)
    return PgClient.layer({
      ...clientOptions,
      applicationName: server.applicationName,
      host: server.host,
      port: server.port,
      username: server.user,
      password: Redacted.make(server.password),
      database: server.database,
      maxConnections: config.databasePoolSize
    })
  })
)

const MigratorLive = PgMigrator.layer({ loader: migrations }).pipe(Layer.provide(NodeContext.layer))

/** SqlClient + PgClient, migrated. */
export const DatabaseLive = MigratorLive.pipe(Layer.provideMerge(PgClientLive))
