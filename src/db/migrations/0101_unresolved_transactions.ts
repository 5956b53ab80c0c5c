/**
 * Transactions left unresolved at `submitting` (issue 30): the settlement resolver's work list, written
 * when the outbox gives up on a transaction whose bytes may have left (and when a retry finds an earlier
 * signature that may still land), pruned once the transaction settled. Replaces 0100's partial index on
 * `transactions.status`: an index over `status` makes every stage transition a non-HOT update (see
 * 0002_pipeline). A transaction whose job failed just before the process died is found through its
 * failed job (the partial index below; outbox jobs are never updated in place anyway).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`DROP INDEX IF EXISTS transactions_submitting_idx`
  yield* sql`
    CREATE TABLE unresolved_transactions (
      tx_id uuid PRIMARY KEY REFERENCES transactions(id) ON DELETE CASCADE,
      since timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX outbox_jobs_failed ON outbox_jobs (updated_at) WHERE status = 'failed'`
})
