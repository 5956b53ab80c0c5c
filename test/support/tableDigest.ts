/**
 * A digest of every table of the service's database (row count and an md5 of the rows), to show
 * that a refused request created or changed no row. Read through the service's own SqlClient.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { RunningService } from "./service.js"

/** Tables written by background loops, not by a request: counters flushed every 500 ms, migrations. */
export const BACKGROUND_TABLES = new Set(["metric_counters", "effect_sql_migrations"])

export type TableDigests = ReadonlyMap<string, string>

/**
 * What authenticating a request writes in the background (src/keys/keyUsage.ts: a key's use and last use),
 * which is the key's record, not the request's effect: left out of the digest of its table.
 */
const KEY_USAGE_EXCLUDED: Readonly<Record<string, { readonly row: string; readonly where: string }>> = {
  audit_events: { row: "t::text", where: "WHERE t.event_type NOT IN ('api_key.used', 'api_key.use_failed')" },
  api_keys: { row: "(to_jsonb(t) - 'last_used_at')::text", where: "" }
}

export const tableDigests = (service: RunningService, skip: ReadonlySet<string> = BACKGROUND_TABLES): Promise<TableDigests> =>
  service.runtime.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const tables = yield* sql<{ name: string }>`
        SELECT table_name AS name FROM information_schema.tables
        WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name`
      // One statement for all tables (names come from the catalog, quoted as identifiers).
      const parts = tables
        .filter(({ name }) => !skip.has(name))
        .map(({ name }) => {
          const { row, where } = KEY_USAGE_EXCLUDED[name] ?? { row: "t::text", where: "" }
          return `SELECT '${name}' AS name, count(*)::text AS rows, md5(string_agg(${row}, '|' ORDER BY ${row})) AS digest FROM "${name.replaceAll('"', '""')}" t ${where}`
        })
      const rows = yield* sql.unsafe<{ name: string; rows: string; digest: string | null }>(parts.join(" UNION ALL "))
      return new Map(rows.map((row) => [row.name, `${row.rows}:${row.digest ?? ""}`]))
    }).pipe(Effect.orDie)
  )

/** The tables whose digest differs. */
export const changedTables = (before: TableDigests, after: TableDigests): Array<string> =>
  [...new Set([...before.keys(), ...after.keys()])].filter((name) => before.get(name) !== after.get(name))

/**
 * The API key usage a request leaves is written every 2 s (keys/keyUsage.ts: a key's first use in a process is an
 * `api_key.used` event): readings this far apart agreeing show that it has landed too.
 */
export const KEY_USAGE_SETTLED_MS = 2_300

/**
 * Waits until two readings `intervalMs` apart agree (work a request started in the background has landed; pass
 * KEY_USAGE_SETTLED_MS to include the key usage written after a key's first use).
 */
export const settledDigests = async (service: RunningService, timeoutMs = 5_000, intervalMs = 80): Promise<TableDigests> => {
  const deadline = Date.now() + Math.max(timeoutMs, 3 * intervalMs)
  let last = await tableDigests(service)
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
    const next = await tableDigests(service)
    if (changedTables(last, next).length === 0 || Date.now() > deadline) return next
    last = next
  }
}

/** A dump of every table as text (for the secret scan). */
export const dumpTables = (service: RunningService): Promise<string> =>
  service.runtime.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const tables = yield* sql<{ name: string }>`
        SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`
      const parts: Array<string> = []
      for (const { name } of tables) {
        const rows = yield* sql<{ row: string }>`SELECT t::text AS row FROM ${sql(name)} t`
        parts.push(`== ${name}\n${rows.map((r) => r.row).join("\n")}`)
      }
      return parts.join("\n")
    }).pipe(Effect.orDie)
  )
