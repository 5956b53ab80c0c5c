/**
 * A policy created with an `idempotencyKey` is found again by it (per tenant), with the request that made
 * it: a create sent again after its answer was lost answers that policy instead of adding a copy, which an
 * operator deleting "the" policy later would not see (docs/decisions/policy.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE policies ADD COLUMN idempotency_key text, ADD COLUMN idempotency_request text`
  yield* sql`CREATE UNIQUE INDEX policies_idempotency ON policies (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
})
