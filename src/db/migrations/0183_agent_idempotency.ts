/**
 * An agent created with an `idempotencyKey` is found again by it (per tenant), with the request that made
 * it: a create sent again after its answer was lost answers that agent instead of making a second one
 * (with a second wallet) (docs/decisions/agents.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE agents ADD COLUMN idempotency_key text, ADD COLUMN idempotency_request text`
  yield* sql`CREATE UNIQUE INDEX agents_idempotency ON agents (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
})
