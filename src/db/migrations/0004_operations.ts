/** Operations: the chaos configuration (spec: Chaos config), one row for the whole deployment. */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  // `id` is always true: the primary key makes a second row impossible.
  yield* sql`
    CREATE TABLE chaos_config (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      enabled boolean NOT NULL DEFAULT false,
      failure_rates jsonb NOT NULL,
      latency_ms integer NOT NULL DEFAULT 0 CHECK (latency_ms >= 0),
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
  // Audit queries: newest first within a tenant, and by event type.
  yield* sql`CREATE INDEX audit_events_tenant_type_seq ON audit_events (tenant_id, event_type, seq)`
})
