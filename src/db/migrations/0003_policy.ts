/**
 * Policies and their immutable versions, the decision per transaction, the exact daily spend and
 * rate-limit state, protocol risk configs and portfolio risk controls (issue #4, docs/decisions/policy.md).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE policies (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL REFERENCES wallets (id),
      name text NOT NULL,
      version integer NOT NULL,
      active boolean NOT NULL,
      rules jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX policies_wallet ON policies (wallet_id, tenant_id, created_at, id)`
  yield* sql`CREATE INDEX policies_tenant ON policies (tenant_id, created_at, id)`
  // Append-only: a version is written once and never updated or deleted (a trigger refuses both).
  yield* sql`
    CREATE TABLE policy_versions (
      policy_id uuid NOT NULL REFERENCES policies (id),
      version integer NOT NULL,
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL,
      name text NOT NULL,
      active boolean NOT NULL,
      rules jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (policy_id, version)
    )`
  yield* sql.unsafe(`
    CREATE FUNCTION policy_versions_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'policy_versions rows are immutable';
    END;
    $$`)
  yield* sql.unsafe(`
    CREATE TRIGGER policy_versions_no_change BEFORE UPDATE OR DELETE ON policy_versions
    FOR EACH ROW EXECUTE FUNCTION policy_versions_immutable()`)

  // One row per wallet, locked (upsert) by every decision of that wallet: decisions of one wallet serialize.
  yield* sql`
    CREATE TABLE policy_wallet_locks (
      wallet_id uuid PRIMARY KEY,
      last_decision_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE policy_decisions (
      tx_id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL,
      decision jsonb NOT NULL,
      approval_spend_lamports numeric(39, 0),
      approved_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE policy_daily_spend (
      wallet_id uuid NOT NULL,
      utc_day text NOT NULL,
      spent_lamports numeric(39, 0) NOT NULL DEFAULT 0 CHECK (spent_lamports >= 0),
      PRIMARY KEY (wallet_id, utc_day)
    )`
  yield* sql`
    CREATE TABLE policy_spend_entries (
      tx_id uuid PRIMARY KEY,
      wallet_id uuid NOT NULL,
      utc_day text NOT NULL,
      lamports numeric(39, 0) NOT NULL,
      released boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now(),
      released_at timestamptz
    )`
  yield* sql`CREATE INDEX policy_spend_entries_wallet_day ON policy_spend_entries (wallet_id, utc_day)`
  yield* sql`
    CREATE TABLE policy_rate_events (
      key text NOT NULL,
      window_seconds integer NOT NULL,
      at timestamptz NOT NULL,
      tx_id uuid
    )`
  yield* sql`CREATE INDEX policy_rate_events_window ON policy_rate_events (key, window_seconds, at)`

  yield* sql`
    CREATE TABLE protocol_risk_configs (
      tenant_id text NOT NULL,
      protocol text NOT NULL,
      config jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, protocol)
    )`
  yield* sql`
    CREATE TABLE portfolio_risk_controls (
      wallet_id uuid PRIMARY KEY REFERENCES wallets (id),
      tenant_id text NOT NULL,
      controls jsonb NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX portfolio_risk_controls_tenant ON portfolio_risk_controls (tenant_id, wallet_id)`
})
