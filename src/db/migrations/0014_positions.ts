/**
 * Protocol positions (spec: Execution tuning, "confirmed position indexing": stake and unstake update a stake
 * position): one row per wallet, protocol, position type and token, holding the amount the chain showed after
 * the wallet's last confirmed operation on it, and its value in lamports at that moment (portfolio exposure reads
 * it). A position that reaches 0 is deleted.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE positions (
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL,
      protocol text NOT NULL,
      position_type text NOT NULL,
      token text NOT NULL,
      amount numeric(20, 0) NOT NULL,
      value_lamports numeric(20, 0) NOT NULL,
      last_tx_id uuid,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, wallet_id, protocol, position_type, token)
    )`
})
