/**
 * x402 payments, one per transaction (issue 16): the requirement paid, the payment payload as built,
 * whether its signed bytes were sent (so a resumed or retried run never builds a second payment), the
 * settlement signature and the resource's answer (status, body digest and excerpt).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE x402_payments (
      tx_id uuid PRIMARY KEY REFERENCES transactions(id) ON DELETE CASCADE,
      tenant_id text NOT NULL,
      url text NOT NULL,
      x402_version integer NOT NULL,
      requirement jsonb NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL CHECK (status IN ('prepared', 'sent', 'settled', 'refused')),
      settlement_signature text,
      response jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
})
