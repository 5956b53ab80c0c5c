/**
 * A wallet created with an `idempotencyKey` is found again by it (per tenant), with the request that made
 * it: a create sent again after its answer was lost answers that wallet instead of making (and funding) a
 * second one (docs/decisions/wallets.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE wallets ADD COLUMN idempotency_key text, ADD COLUMN idempotency_request text`
  yield* sql`CREATE UNIQUE INDEX wallets_idempotency ON wallets (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
})
