/**
 * Agents (issue #5, docs/decisions/agents.md): the agent registry with its daily budget counter, the
 * per-transaction budget reservations (released exactly once), issued manifest nonces (revocable one by
 * one), breaches the supervisor consumes, treasury operations, backtest runs and paper trades.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // spent_lamports_today counts for spent_day (UTC 'YYYY-MM-DD'); a reservation on a later day resets it.
  yield* sql`
    CREATE TABLE agents (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      name text NOT NULL,
      wallet_id uuid NOT NULL REFERENCES wallets (id),
      status text NOT NULL CHECK (status IN ('stopped', 'running', 'paused')),
      execution_mode text NOT NULL CHECK (execution_mode IN ('autonomous', 'supervised')),
      allowed_intents jsonb NOT NULL,
      allowed_protocols jsonb,
      budget_lamports numeric(39, 0) CHECK (budget_lamports >= 0),
      spent_lamports_today numeric(39, 0) NOT NULL DEFAULT 0 CHECK (spent_lamports_today >= 0),
      spent_day text NOT NULL,
      budget_updated_at timestamptz NOT NULL DEFAULT now(),
      autonomy jsonb NOT NULL,
      paused_reason text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX agents_tenant_created ON agents (tenant_id, created_at, id)`
  yield* sql`CREATE INDEX agents_status ON agents (status)`
  yield* sql`CREATE INDEX agents_wallet ON agents (wallet_id)`

  // One row per executed spend, reserved before the transaction exists and then bound to it (tx_id).
  // Released at most once (released_at set), and only on the UTC day it counted.
  yield* sql`
    CREATE TABLE agent_budget_reservations (
      id uuid PRIMARY KEY,
      tx_id uuid UNIQUE,
      agent_id uuid NOT NULL REFERENCES agents (id),
      tenant_id text NOT NULL,
      utc_day text NOT NULL,
      lamports numeric(39, 0) NOT NULL CHECK (lamports >= 0),
      released_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX agent_budget_reservations_open ON agent_budget_reservations (created_at) WHERE released_at IS NULL`

  yield* sql`
    CREATE TABLE agent_manifests (
      nonce text PRIMARY KEY,
      agent_id uuid NOT NULL REFERENCES agents (id),
      tenant_id text NOT NULL,
      allowed_intents jsonb NOT NULL,
      allowed_protocols jsonb NOT NULL,
      issued_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      revoked_reason text
    )`
  yield* sql`CREATE INDEX agent_manifests_agent ON agent_manifests (agent_id, issued_at)`

  // Written by execute (budget) and the pipeline's delta guard; the supervisor pauses the agent and marks it handled.
  yield* sql`
    CREATE TABLE agent_breaches (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      agent_id uuid NOT NULL REFERENCES agents (id),
      kind text NOT NULL CHECK (kind IN ('budget', 'delta_guard')),
      reason text NOT NULL,
      tx_id uuid,
      created_at timestamptz NOT NULL DEFAULT now(),
      handled boolean NOT NULL DEFAULT false,
      handled_at timestamptz
    )`
  yield* sql`CREATE INDEX agent_breaches_unhandled ON agent_breaches (created_at) WHERE NOT handled`

  yield* sql`
    CREATE TABLE treasury_operations (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      kind text NOT NULL CHECK (kind IN ('allocate', 'rebalance')),
      source_agent_id uuid REFERENCES agents (id),
      target_agent_id uuid NOT NULL REFERENCES agents (id),
      lamports numeric(39, 0) NOT NULL CHECK (lamports > 0),
      reason text NOT NULL,
      source_budget_before numeric(39, 0),
      source_budget_after numeric(39, 0),
      target_budget_before numeric(39, 0) NOT NULL,
      target_budget_after numeric(39, 0) NOT NULL,
      tx_id uuid,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX treasury_operations_tenant ON treasury_operations (tenant_id, created_at)`

  yield* sql`
    CREATE TABLE backtest_runs (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL,
      name text NOT NULL,
      total_steps integer NOT NULL,
      passed_steps integer NOT NULL,
      failed_steps integer NOT NULL,
      pass_rate double precision NOT NULL,
      minimum_pass_rate double precision NOT NULL,
      total_pnl_lamports numeric(40, 0) NOT NULL,
      passed boolean NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX backtest_runs_wallet ON backtest_runs (wallet_id, passed)`

  // At most 500 per agent: each insert deletes the agent's oldest beyond that (seq orders them).
  yield* sql`
    CREATE TABLE paper_trades (
      id uuid PRIMARY KEY,
      seq bigserial UNIQUE,
      tenant_id text NOT NULL,
      agent_id uuid NOT NULL REFERENCES agents (id),
      wallet_id uuid NOT NULL,
      type text NOT NULL,
      protocol text NOT NULL,
      intent jsonb NOT NULL,
      outcome jsonb,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`CREATE INDEX paper_trades_agent ON paper_trades (agent_id, seq)`
})
