/**
 * Retention of the audit log (AUDIT_RETENTION_DAYS, actors/retention.ts): events older than the cutoff
 * are deleted oldest first, a bounded batch per statement, along the `seq` index (insertion order, which
 * is time order but for clock steps). The audit component owns audit_events, so the delete lives here.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rowDecoding.js"

const DeletedCountRow = Schema.Struct({ n: Schema.String })

export class AuditRetention extends Effect.Service<AuditRetention>()("AuditRetention", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Deletes up to `batch` of the oldest events created before `cutoff`; answers how many. Fewer than
     * `batch` means the oldest events left are newer than the cutoff (or nearly all of them are).
     */
    const pruneOlderThan = (cutoff: Date, batch: number) =>
      sql`
        WITH oldest AS (SELECT seq FROM audit_events ORDER BY seq LIMIT ${batch}),
        gone AS (
          DELETE FROM audit_events a USING oldest o WHERE a.seq = o.seq AND a.created_at < ${cutoff.toISOString()}::timestamptz RETURNING 1
        )
        SELECT count(*)::text AS n FROM gone
      `.pipe(
        decodeRows("audit_events", DeletedCountRow),
        Effect.map(([row]) => Number(row?.n ?? 0)),
        Effect.orDie,
        Effect.withSpan("AuditRetention.pruneOlderThan")
      )

    return { pruneOlderThan }
  })
}) {}
