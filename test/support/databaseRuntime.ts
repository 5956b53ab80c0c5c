/**
 * A runtime of service layers over the database layer as the service builds it (DatabaseLive with
 * AppConfig) on a test's database, with a DATA_DIR of its own; `dispose` ends both. For tests of one
 * part on a real PostgreSQL without starting a whole service.
 */
import type { SqlClient } from "@effect/sql"
import type { PgClient } from "@effect/sql-pg"
import { ConfigProvider, Layer, Logger, ManagedRuntime } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { AppConfig } from "../../src/config.js"
import { DatabaseLive } from "../../src/db/database.js"

export const databaseRuntime = <A, E>(
  databaseUrl: string,
  layer: Layer.Layer<A, E, SqlClient.SqlClient | PgClient.PgClient>,
  env: Readonly<Record<string, string>> = {},
  /** Replaces the default logger while the layers are built and run (what they log at start included). */
  logger?: Logger.Logger<unknown, void>
) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-db-runtime-"))
  const settings = {
    DATABASE_URL: databaseUrl,
    DATA_DIR: dataDir,
    WALLET_KEY_ENCRYPTION_SECRET: "database-runtime-test-secret",
    API_GATEWAY_API_KEYS: "database-runtime-test-key:*:all",
    ...env
  }
  const runtime = ManagedRuntime.make(
    layer.pipe(
      Layer.provideMerge(DatabaseLive),
      Layer.provide(AppConfig.Default),
      Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(settings))))),
      Layer.provide(logger === undefined ? Layer.empty : Logger.replace(Logger.defaultLogger, logger))
    )
  )
  return {
    runtime,
    dispose: async () => {
      await runtime.dispose()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }
}
