/**
 * A database that grows (issue 35, docs/decisions/production.md): indexes the cursor pages need when no
 * tenant narrows a list, and what the retention actor needs to find old transaction history without a
 * scan. `history_pruned_at` marks a transaction whose stage history, signed bytes and outbox jobs were
 * dropped by TX_HISTORY_RETENTION_DAYS. The partial index names only columns a stage transition never
 * writes (created_at, history_pruned_at), so transitions stay heap-only (HOT) updates.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX IF NOT EXISTS wallets_created ON wallets (created_at, id)`
  yield* sql`CREATE INDEX IF NOT EXISTS agents_created ON agents (created_at, id)`
  yield* sql`ALTER TABLE transactions ADD COLUMN IF NOT EXISTS history_pruned_at timestamptz`
  yield* sql`CREATE INDEX IF NOT EXISTS transactions_history_unpruned ON transactions (created_at) WHERE history_pruned_at IS NULL`
})
