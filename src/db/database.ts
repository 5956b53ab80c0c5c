/**
 * The database layer: `@effect/sql-pg` against DATABASE_URL, or against the embedded PostgreSQL server
 * under DATA_DIR when it is unset (embeddedServer.ts); migrations run at start by PgMigrator,
 * one process at a time (serializedMigrations.ts).
 */
import { SqlError } from "@effect/sql/SqlError"
import { PgClient } from "@effect/sql-pg"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import pg from "pg"
import { AppConfig } from "../config.js"
import { embeddedDatabase } from "../headStarts.js"
import { AutovacuumCheckLive } from "./autovacuumCheck.js"
import { PreparingClient } from "./preparedStatements.js"
import { SerializedMigratorLive } from "./serializedMigrations.js"
import { SilentConnectionWatch } from "./silentConnections.js"
import { countingStatements, DatabaseStatements, StatementCount } from "./statementCount.js"

/** int8 and numeric come back as strings from node-postgres: keep them exact, convert at the repository edge. */
const clientOptions = {
  transformJson: false,
  applicationName: "agent-custody"
} as const

/**
 * The embedded server of DATA_DIR, started or joined (while the modules loaded, when main.ts could:
 * headStarts.ts); stopped when this process leaves last (after its pool closed).
 */
const embeddedServer = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => embeddedDatabase(dataDir),
      catch: (cause) => new Error(`could not start the embedded PostgreSQL under ${dataDir}: ${cause instanceof Error ? cause.message : String(cause)}`)
    }).pipe(Effect.orDie),
    (opened) => Effect.promise(() => opened.release())
  ).pipe(Effect.map((opened) => opened.server))

/**
 * A new connection gives up after 5 s: behind an address that stopped answering (a failed-over primary's old
 * one, a dropped route) node-postgres would wait for TCP's own timeout (minutes), each request with it; now the
 * request answers 503 and the next one tries again. Only the connect is bounded: the pool's wait for a free
 * connection is not (under load that wait is the queue, and a bound would turn load into failures).
 */
export const CONNECT_TIMEOUT_MS = 5_000

const withConnectBound = (Base: typeof pg.Client): typeof pg.Client =>
  class extends Base {
    constructor(config?: string | pg.ClientConfig) {
      super(typeof config === "string" || config === undefined ? config : boundedConfig(config))
    }
  }

/**
 * The pool's options with the connect bound, as a new object: setting it on the pool's own options would bound
 * the pool's queue too. The pool keeps `password` non-enumerable (out of logs), so a spread leaves it out:
 * copied by hand, kept non-enumerable.
 */
const boundedConfig = (config: pg.ClientConfig): pg.ClientConfig => {
  const bounded: pg.ClientConfig = { ...config, connectionTimeoutMillis: config.connectionTimeoutMillis ?? CONNECT_TIMEOUT_MS }
  Object.defineProperty(bounded, "password", { configurable: true, enumerable: false, writable: true, value: config.password })
  return bounded
}

const BoundedClient = withConnectBound(pg.Client)
const BoundedPreparingClient = withConnectBound(PreparingClient)

/**
 * The pool, as PgClient.layer makes it (connected once before use, ended on release), with
 * PreparingClient connections unless prepared statements are turned off, watched for connections that stop
 * answering mid-statement (silentConnections.ts) unless `silenceCheckMs` is 0. TCP keepalive on: an idle
 * connection behind a NAT or load balancer is not dropped silently for being idle.
 */
const pool = (base: pg.PoolConfig, prepared: boolean, silenceCheckMs: number, count: StatementCount) =>
  Effect.gen(function* () {
    const options: pg.PoolConfig = { ...base, keepAlive: true }
    const Client = countingStatements(prepared ? BoundedPreparingClient : BoundedClient, count)
    const watch = silenceCheckMs > 0 ? new SilentConnectionWatch(silenceCheckMs, () => new BoundedClient(options)) : undefined
    const made = yield* Effect.acquireRelease(
      Effect.sync(() => {
        const made = new pg.Pool({ ...options, Client: watch === undefined ? Client : watch.watching(Client) })
        made.on("error", () => {})
        return made
      }),
      (made) => Effect.promise(() => made.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
    )
    // The first connection, and whether its pid is its backend's (the watch's lookups need it to be).
    const pids = yield* Effect.tryPromise({
      try: async () => {
        const client = await made.connect()
        try {
          const result = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid")
          return { reported: (client as unknown as { processID: number | null }).processID, backend: result.rows[0]!.pid }
        } finally {
          client.release()
        }
      },
      catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
    }).pipe(
      Effect.timeoutFail({ duration: Duration.seconds(5), onTimeout: () => new SqlError({ cause: new Error("Connection timed out"), message: "PgClient: Connection timed out" }) })
    )
    if (watch !== undefined) {
      yield* watch.notePids(pids.reported, pids.backend)
      yield* Effect.forkScoped(watch.run())
    }
    return made
  })

/**
 * PgClient on a pool of `options` with the settings of AppConfig (size unless `max` is given, prepared statements, the
 * watch), and the count of the statements its connections sent.
 */
const pgClientOn = (options: pg.PoolConfig, config: AppConfig) => {
  const count = new StatementCount()
  return Layer.merge(
    PgClient.layerFromPool({
      ...clientOptions,
      applicationName: options.application_name ?? clientOptions.applicationName,
      acquire: pool({ max: config.databasePoolSize, ...options }, config.databasePreparedStatements, config.databaseSilenceCheckMs, count)
    }),
    Layer.succeed(DatabaseStatements, count)
  )
}

/**
 * PgClient on DATABASE_URL alone, without migrations (another process owns the schema), its connections
 * bounded and watched as the service's are: for a process of its own such as the wallet engine.
 */
export const pgClientOnUrl = (options: { readonly applicationName: string; readonly maxConnections: number }) =>
  Layer.unwrapEffect(
    Effect.map(AppConfig, (config) =>
      pgClientOn(
        { connectionString: Redacted.value(Option.getOrThrow(config.databaseUrl)), application_name: options.applicationName, max: options.maxConnections },
        config
      )
    )
  )

const PgClientLive = Layer.unwrapScoped(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const fromPool = (options: pg.PoolConfig) => pgClientOn(options, config)
    if (Option.isSome(config.databaseUrl)) {
      return fromPool({ connectionString: Redacted.value(config.databaseUrl.value), application_name: clientOptions.applicationName })
    }
    const server = yield* embeddedServer(config.dataDir)
    return fromPool({
      application_name: server.applicationName,
      host: server.host,
      port: server.port,
      user: server.user,
      password: server.password,
      database: server.database
    })
  })
)

/** SqlClient + PgClient, migrated (by one process at a time); then a word to the operator when autovacuum is off. */
export const DatabaseLive = AutovacuumCheckLive.pipe(Layer.provideMerge(SerializedMigratorLive), Layer.provideMerge(PgClientLive))
