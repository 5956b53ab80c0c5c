/**
 * Whether PostgreSQL's autovacuum looks after the service's tables. Every stage transition, claim and
 * delivery leaves a dead row version behind (the outbox, the transactions, the webhook queue); with
 * autovacuum off, nothing reclaims them or refreshes the planner's statistics, and those tables and
 * their indexes only grow. The service runs either way: it says so once at start, where an operator
 * reads it, and carries on (docs/decisions/database.md, "Autovacuum").
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schema } from "effect"
import { decodeRows } from "./rowDecoding.js"

const GapsRow = Schema.Struct({ server: Schema.String, tables: Schema.Array(Schema.String) })

export interface AutovacuumGaps {
  /** The server's `autovacuum` setting is off. */
  readonly serverOff: boolean
  /** The service's tables with `autovacuum_enabled = false` of their own. */
  readonly tablesOff: ReadonlyArray<string>
}

export const autovacuumGaps: Effect.Effect<AutovacuumGaps, never, SqlClient.SqlClient> = Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql`
    SELECT current_setting('autovacuum') AS server,
      ARRAY(SELECT c.relname::text FROM pg_class c
            WHERE c.relkind IN ('r', 'p') AND c.relnamespace = current_schema()::regnamespace
              AND c.reloptions @> ARRAY['autovacuum_enabled=false']
            ORDER BY c.relname) AS tables
  `.pipe(
    decodeRows("pg_class", GapsRow),
    Effect.map(([row]) => ({ serverOff: row?.server === "off", tablesOff: row?.tables ?? [] })),
    Effect.orDie
  )
)

/** The warning for `gaps`, or none when autovacuum looks after every table. */
export const autovacuumWarning = (gaps: AutovacuumGaps): string | undefined => {
  const consequence = "dead row versions of stage transitions, outbox claims and webhook deliveries are never reclaimed, so those tables and their indexes keep growing and slow down"
  if (gaps.serverOff) return `PostgreSQL's autovacuum is off on this server: ${consequence}; turn it on (autovacuum = on) or run VACUUM ANALYZE on a schedule`
  if (gaps.tablesOff.length > 0) return `autovacuum is off for ${gaps.tablesOff.join(", ")} (autovacuum_enabled = false): ${consequence}; reset it (ALTER TABLE ... RESET (autovacuum_enabled))`
  return undefined
}

/** Reads the gaps once, after the migrations, beside the start (never delaying it); a failed read says nothing. */
export const AutovacuumCheckLive = Layer.scopedDiscard(
  Effect.forkScoped(
    autovacuumGaps.pipe(
      Effect.flatMap((gaps) => {
        const warning = autovacuumWarning(gaps)
        return warning === undefined ? Effect.void : Effect.logWarning(warning)
      }),
      Effect.catchAllCause(() => Effect.void)
    )
  )
)
