/** Wallets, the audit log and metric counters: the tables every component writes to. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE wallets (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      public_key text NOT NULL UNIQUE,
      provider text NOT NULL,
      key_backend text NOT NULL,
      status text NOT NULL DEFAULT 'active',
      label text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX wallets_tenant_created ON wallets (tenant_id, created_at, id)`
  yield* sql`
    CREATE TABLE audit_events (
      id uuid PRIMARY KEY,
      seq bigserial UNIQUE,
      tenant_id text NOT NULL,
      event_type text NOT NULL,
      message text NOT NULL,
      metadata jsonb NOT NULL DEFAULT '{}'::jsonb,
      tx_id uuid,
      wallet_id uuid,
      agent_id uuid,
      protocol text,
      escrow_id text,
      entity_type text,
      category text,
      trace_id text,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX audit_events_tenant_seq ON audit_events (tenant_id, seq)`
  yield* sql`CREATE INDEX audit_events_tx ON audit_events (tx_id) WHERE tx_id IS NOT NULL`
  yield* sql`CREATE INDEX audit_events_wallet ON audit_events (wallet_id) WHERE wallet_id IS NOT NULL`
  yield* sql`CREATE INDEX audit_events_agent ON audit_events (agent_id) WHERE agent_id IS NOT NULL`
  yield* sql`CREATE INDEX audit_events_escrow ON audit_events (escrow_id) WHERE escrow_id IS NOT NULL`
  yield* sql`
    CREATE TABLE metric_counters (
      name text PRIMARY KEY,
      value bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
})
