/**
 * Escrow records (spec: Other records; Execution tuning: escrow operations upsert the escrow record):
 * one row per escrow account and tenant, refreshed from the chain after every confirmed escrow operation.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // u64 amounts do not fit int8: numeric(20, 0). `state` is the last escrow operation applied,
  // `status` the program's own status (created, accepted, completed, refunded, disputed, resolved).
  yield* sql`
    CREATE TABLE escrow_records (
      tenant_id text NOT NULL,
      escrow_address text NOT NULL,
      program_id text NOT NULL,
      escrow_id text NOT NULL,
      wallet_id uuid NOT NULL,
      protocol text NOT NULL DEFAULT 'escrow',
      state text NOT NULL,
      status text NOT NULL,
      creator text NOT NULL,
      counterparty text NOT NULL,
      arbiter text NOT NULL,
      fee_recipient text NOT NULL,
      amount numeric(20, 0) NOT NULL,
      paid_out numeric(20, 0) NOT NULL,
      fee_bps integer NOT NULL,
      deadline_unix_sec bigint NOT NULL,
      milestone_count integer NOT NULL,
      milestones_released integer NOT NULL,
      resolution text,
      last_tx_id uuid,
      last_signature text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, escrow_address)
    )`
  yield* sql`CREATE INDEX escrow_records_wallet ON escrow_records (tenant_id, wallet_id)`
  yield* sql`CREATE INDEX escrow_records_creator ON escrow_records (tenant_id, creator)`
  yield* sql`CREATE INDEX escrow_records_counterparty ON escrow_records (tenant_id, counterparty)`
  yield* sql`CREATE INDEX escrow_records_arbiter ON escrow_records (tenant_id, arbiter)`
  yield* sql`CREATE INDEX escrow_records_escrow_id ON escrow_records (tenant_id, escrow_id)`
})
