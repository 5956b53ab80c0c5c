/**
 * A subscription created with an `idempotencyKey` is found again by it (per tenant): a create sent again
 * after its answer was lost answers the subscription it made, with its secret, instead of making a second
 * one whose secret, like the first's, no one saw (docs/decisions/webhooks.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_subscriptions ADD COLUMN idempotency_key text`
  yield* sql`CREATE UNIQUE INDEX webhook_subscriptions_idempotency ON webhook_subscriptions (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
})
