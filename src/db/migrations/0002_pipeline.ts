/** Transactions and the durable outbox (spec: Transaction, Outbox job). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE transactions (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL REFERENCES wallets (id),
      agent_id uuid,
      type text NOT NULL,
      protocol text NOT NULL,
      intent jsonb NOT NULL,
      request jsonb NOT NULL,
      request_hash text NOT NULL,
      gasless boolean NOT NULL DEFAULT false,
      require_approval boolean NOT NULL DEFAULT false,
      idempotency_key text,
      status text NOT NULL,
      stage text NOT NULL,
      failed_at text,
      error_code text,
      error text,
      signature text,
      signed_transaction text,
      message_base64 text,
      extra_signatures jsonb,
      build_facts jsonb,
      last_valid_block_height bigint,
      policy_decision jsonb,
      simulation jsonb,
      execution_proof jsonb,
      delta_guard jsonb,
      pre_balance_lamports bigint,
      post_balance_lamports bigint,
      result jsonb,
      approval jsonb,
      history jsonb NOT NULL DEFAULT '[]'::jsonb,
      attempts integer NOT NULL DEFAULT 0,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      confirmed_at timestamptz
    ) WITH (fillfactor = 70)`
  yield* sql`CREATE UNIQUE INDEX transactions_idempotency ON transactions (tenant_id, wallet_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
  yield* sql`CREATE INDEX transactions_wallet_created ON transactions (wallet_id, created_at DESC, id)`
  yield* sql`CREATE INDEX transactions_agent ON transactions (agent_id, created_at DESC) WHERE agent_id IS NOT NULL`
  // Every stage rewrites the row: free space in each page (fillfactor) and no index over `status` let
  // PostgreSQL update it in place (HOT) without touching the indexes. The approval expirer finds its rows by
  // the approval's expiry, a column that only changes at the gate.
  yield* sql`CREATE INDEX transactions_approval_expiry ON transactions ((approval->>'expiresAt')) WHERE approval IS NOT NULL`
  yield* sql`CREATE UNIQUE INDEX transactions_signature ON transactions (signature) WHERE signature IS NOT NULL`
  yield* sql`
    CREATE TABLE outbox_jobs (
      id uuid PRIMARY KEY,
      tx_id uuid NOT NULL REFERENCES transactions (id),
      action text NOT NULL CHECK (action IN ('execute', 'retry', 'approve')),
      status text NOT NULL CHECK (status IN ('pending', 'processing', 'done', 'failed')),
      attempts integer NOT NULL DEFAULT 0,
      lease_id uuid,
      lease_expires_at timestamptz,
      available_at timestamptz NOT NULL DEFAULT now(),
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // At most one open (pending or processing) job per transaction.
  yield* sql`CREATE UNIQUE INDEX outbox_one_open_job ON outbox_jobs (tx_id) WHERE status IN ('pending', 'processing')`
  yield* sql`CREATE INDEX outbox_claimable ON outbox_jobs (created_at) WHERE status IN ('pending', 'processing')`
})
