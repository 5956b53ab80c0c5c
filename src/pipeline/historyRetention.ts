/**
 * Retention of transaction history (TX_HISTORY_RETENTION_DAYS, actors/retention.ts). A terminal
 * transaction (confirmed or failed) created and last changed before the cutoff keeps its record: status,
 * request, signature, result, delta guard, and what its execution proof hashes (the request's intent, the
 * policy decision, the simulation) with the proof itself, so `/proof` and `/replay` still verify
 * (docs/proof.md). It loses the detail: the stage history (replaced by one entry saying so; a retry's
 * entries stay, as they carry the earlier attempts' proofs), the signed bytes and message, the extra
 * signatures and build facts, and its finished outbox jobs. The pipeline owns both tables.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rowDecoding.js"

export const PRUNED_HISTORY_MESSAGE = "stage history pruned (TX_HISTORY_RETENTION_DAYS); the record and its execution proof remain"

const PrunedCountRow = Schema.Struct({ n: Schema.String })

export class HistoryRetention extends Effect.Service<HistoryRetention>()("HistoryRetention", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Prunes up to `batch` of the oldest such transactions (along transactions_history_unpruned); answers
     * how many. Rows another worker holds are skipped (SKIP LOCKED), never waited for.
     */
    const pruneOlderThan = (cutoff: Date, batch: number) =>
      sql`
        WITH due AS (
          SELECT id FROM transactions
          WHERE history_pruned_at IS NULL AND created_at < ${cutoff.toISOString()}::timestamptz
            AND updated_at < ${cutoff.toISOString()}::timestamptz AND status IN ('confirmed', 'failed')
          ORDER BY created_at
          LIMIT ${batch}
          FOR UPDATE SKIP LOCKED
        ), jobs AS (
          DELETE FROM outbox_jobs o USING due WHERE o.tx_id = due.id AND o.status IN ('done', 'failed') RETURNING 1
        ), pruned AS (
          UPDATE transactions t SET
            history = COALESCE((SELECT jsonb_agg(e) FROM jsonb_array_elements(t.history) e WHERE e ? 'earlierAttempt'), '[]'::jsonb)
              || jsonb_build_array(jsonb_build_object('status', t.status, 'stage', t.stage,
                   'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'message', ${PRUNED_HISTORY_MESSAGE}::text)),
            signed_transaction = NULL, message_base64 = NULL, extra_signatures = NULL, build_facts = NULL,
            history_pruned_at = now()
          FROM due WHERE t.id = due.id
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM pruned)::text AS n, (SELECT count(*) FROM jobs) AS jobs
      `.pipe(
        decodeRows("transactions", PrunedCountRow),
        Effect.map(([row]) => Number(row?.n ?? 0)),
        Effect.orDie,
        Effect.withSpan("HistoryRetention.pruneOlderThan")
      )

    return { pruneOlderThan }
  })
}) {}
