/**
 * Relayed fees per tenant and UTC day (issue 31): one row per gasless transaction, the fee the relay pays for
 * it, reserved under a per-tenant lock before anything is signed (src/pipeline/gaslessQuota.ts). A
 * transaction that failed before it was sent no longer counts, so nothing has to be given back.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE gasless_fee_reservations (
      tx_id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      utc_day text NOT NULL,
      fee_lamports numeric(30, 0) NOT NULL,
      reserved_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX gasless_fee_reservations_day ON gasless_fee_reservations (tenant_id, utc_day)`
})
