/**
 * The agent runtime's durable state (issue #5 part 2, docs/decisions/agent-runtime.md): one lease per
 * running agent (which process runs its actor), the tick counter and last error per agent, run counts
 * of steps and rules, and every action taken (the hourly cap, crash recovery of a claimed run).
 * Times of ticks, runs and actions come from the actors' Clock; lease expiry uses the database's now().
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // Claimed by an atomic upsert-if-expired; the row lock also fences each action claim (owner must match).
  yield* sql`
    CREATE TABLE agent_leases (
      agent_id uuid PRIMARY KEY REFERENCES agents (id),
      owner_id text NOT NULL,
      expires_at timestamptz NOT NULL,
      acquired_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE agent_runtime_state (
      agent_id uuid PRIMARY KEY REFERENCES agents (id),
      tick bigint NOT NULL DEFAULT 0,
      last_tick_at timestamptz,
      next_tick_at timestamptz,
      last_error text,
      last_error_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE agent_step_runs (
      agent_id uuid NOT NULL REFERENCES agents (id),
      step_id text NOT NULL,
      runs integer NOT NULL CHECK (runs >= 0),
      last_run_at timestamptz,
      PRIMARY KEY (agent_id, step_id)
    )`
  yield* sql`
    CREATE TABLE agent_rule_runs (
      agent_id uuid NOT NULL REFERENCES agents (id),
      rule_id text NOT NULL,
      runs integer NOT NULL CHECK (runs >= 0),
      last_run_at timestamptz,
      PRIMARY KEY (agent_id, rule_id)
    )`
  // One row per run of a step or rule: `claimed` until execute (or the paper trade) answered.
  yield* sql`
    CREATE TABLE agent_actions (
      id uuid PRIMARY KEY,
      agent_id uuid NOT NULL REFERENCES agents (id),
      source text NOT NULL CHECK (source IN ('step', 'rule')),
      source_id text NOT NULL,
      run integer NOT NULL,
      kind text NOT NULL CHECK (kind IN ('execute', 'paper')),
      status text NOT NULL CHECK (status IN ('claimed', 'submitted', 'paper', 'failed')),
      type text NOT NULL,
      protocol text NOT NULL,
      intent jsonb NOT NULL,
      gasless boolean NOT NULL DEFAULT false,
      idempotency_key text NOT NULL,
      tx_id uuid,
      paper_trade_id uuid,
      error text,
      at timestamptz NOT NULL,
      UNIQUE (agent_id, source, source_id, run)
    )`
  yield* sql`CREATE INDEX agent_actions_agent_at ON agent_actions (agent_id, at)`
  yield* sql`CREATE INDEX agent_actions_claimed ON agent_actions (agent_id) WHERE status = 'claimed'`
  // The supervisor's sweep: agent transactions that confirmed with a failed delta guard, one breach each.
  yield* sql`CREATE INDEX transactions_agent_delta_breach ON transactions (created_at) WHERE agent_id IS NOT NULL AND (delta_guard->>'ok') = 'false'`
  yield* sql`CREATE UNIQUE INDEX agent_breaches_one_per_tx ON agent_breaches (tx_id, kind) WHERE tx_id IS NOT NULL`
})
