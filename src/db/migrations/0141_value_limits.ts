/**
 * Value limits (issue 34 item 1, docs/decisions/value-limits.md): per wallet or agent, limits of the value that
 * leaves over rolling windows, in USD or SOL at oracle prices; and one reservation per transaction (its value at
 * decision time in lamports and micro-USD), written by the policy engine under the wallet's lock with the
 * decision and released by the same hook as the daily spend. Owned by the risk component (valueLimits.ts).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE value_limits (
      scope text NOT NULL CHECK (scope IN ('wallet', 'agent')),
      target_id uuid NOT NULL,
      tenant_id text NOT NULL,
      limits jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (scope, target_id)
    )`
  yield* sql`
    CREATE TABLE value_reservations (
      tx_id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL,
      agent_id uuid,
      value_lamports numeric(30, 0) NOT NULL,
      value_micro_usd numeric(30, 0) NOT NULL,
      reserved_at timestamptz NOT NULL DEFAULT now(),
      released_at timestamptz
    )`
  yield* sql`CREATE INDEX value_reservations_wallet ON value_reservations (wallet_id, reserved_at) WHERE released_at IS NULL`
  yield* sql`CREATE INDEX value_reservations_agent ON value_reservations (agent_id, reserved_at) WHERE released_at IS NULL AND agent_id IS NOT NULL`
})
