/**
 * Off-chain effects happen once (docs/decisions/agents.md "Treasury moves and paper trades happen once"):
 * a treasury move or a paper trade performed for a pipeline transaction is found again by its `tx_id`
 * when a worker runs the transaction a second time (its first run's confirmation lost); a treasury move
 * sent with an `idempotencyKey` is found again by it when the request is repeated.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE treasury_operations ADD COLUMN idempotency_key text`
  yield* sql`CREATE UNIQUE INDEX treasury_operations_tx ON treasury_operations (tx_id) WHERE tx_id IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX treasury_operations_idempotency ON treasury_operations (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
  yield* sql`ALTER TABLE paper_trades ADD COLUMN tx_id uuid`
  yield* sql`CREATE UNIQUE INDEX paper_trades_tx ON paper_trades (tx_id) WHERE tx_id IS NOT NULL`
})
