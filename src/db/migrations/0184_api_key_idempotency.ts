/**
 * A key issued with an `idempotencyKey` is found again by it (per tenant), with the request that made it: an
 * issue sent again after its answer was lost names the key it made (whose secret only that answer held, so it
 * can be rotated or revoked) instead of issuing a second one nobody holds (docs/decisions/access.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE api_keys ADD COLUMN idempotency_key text, ADD COLUMN idempotency_request text`
  yield* sql`CREATE UNIQUE INDEX api_keys_idempotency ON api_keys (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
})
