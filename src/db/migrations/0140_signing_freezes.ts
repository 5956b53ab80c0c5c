/**
 * The kill switch (issue 34 item 3, docs/decisions/freeze.md): an operator's freeze of a tenant, a wallet or an
 * agent. At most one active freeze per scope (unfrozen_at NULL); lifted freezes stay as history. Owned by the
 * wallet component (src/wallet/signingFreezes.ts): what may be signed is the wallet's rule. Freeze events
 * (`freeze.applied`, `freeze.lifted`) go out as webhooks through a trigger of their own, so the transaction
 * webhook trigger of 0012 (which other migrations may replace) is left alone.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE signing_freezes (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      scope text NOT NULL CHECK (scope IN ('tenant', 'wallet', 'agent')),
      target_id text NOT NULL,
      reason text NOT NULL,
      frozen_by text NOT NULL,
      frozen_at timestamptz NOT NULL,
      unfrozen_at timestamptz,
      unfrozen_by text,
      unfreeze_reason text
    )`
  yield* sql`CREATE UNIQUE INDEX signing_freezes_active ON signing_freezes (tenant_id, scope, target_id) WHERE unfrozen_at IS NULL`
  yield* sql`CREATE INDEX signing_freezes_tenant ON signing_freezes (tenant_id, frozen_at DESC)`
  yield* sql`
    CREATE FUNCTION freeze_webhooks_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE queued integer;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM webhook_subscriptions) THEN RETURN NULL; END IF;
      WITH queued_rows AS (
        INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, event_type, audit_event_id, payload)
        SELECT gen_random_uuid(), s.id, e.tenant_id, e.event_type, e.id,
          jsonb_build_object(
            'type', e.event_type,
            'timestamp', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_strip_nulls(jsonb_build_object(
              'eventId', e.id, 'auditEventType', e.event_type, 'tenantId', e.tenant_id, 'message', e.message,
              'walletId', e.wallet_id, 'agentId', e.agent_id, 'traceId', e.trace_id, 'metadata', e.metadata)))
        FROM new_events e
        JOIN webhook_subscriptions s ON s.tenant_id = e.tenant_id AND e.event_type = ANY (s.event_types)
        WHERE e.event_type IN ('freeze.applied', 'freeze.lifted')
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT count(*) INTO queued FROM queued_rows;
      IF queued > 0 THEN PERFORM pg_notify('webhook_deliveries', queued::text); END IF;
      RETURN NULL;
    END $$`
  yield* sql`
    CREATE TRIGGER audit_events_freeze_webhooks AFTER INSERT ON audit_events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION freeze_webhooks_enqueue()`
})
