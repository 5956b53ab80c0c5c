/**
 * Off-chain effects happen once (docs/decisions/agents.md, treasury): a treasury move performed for a
 * pipeline transaction is found again by its `tx_id` when a worker runs the transaction a second time (its
 * first run's confirmation lost), and one sent with an `idempotencyKey` by the key when the request is
 * repeated; a paper trade by its `once_key` (`tx:<txId>` for a paper_trade transaction, `run:<key>` for an
 * autonomous agent's action re-sent after a crash).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE treasury_operations ADD COLUMN idempotency_key text`
  yield* sql`CREATE UNIQUE INDEX treasury_operations_tx ON treasury_operations (tx_id) WHERE tx_id IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX treasury_operations_idempotency ON treasury_operations (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
  yield* sql`ALTER TABLE paper_trades ADD COLUMN once_key text`
  yield* sql`CREATE UNIQUE INDEX paper_trades_once ON paper_trades (agent_id, once_key) WHERE once_key IS NOT NULL`
})
