/**
 * Webhooks (issue 19, spec note [n21]) and the trace id of a transaction.
 *
 * - `transactions.trace_id`: the traceId of the request that created it, so its pipeline runs export
 *   their spans in that trace and its stage audit events carry it.
 * - `webhook_subscriptions`: a tenant's endpoint, the event types it wants, and its signing secret.
 * - `webhook_deliveries`: the durable queue (leases, FOR UPDATE SKIP LOCKED, as the outbox): one row per
 *   event and subscription; `pending` -> `delivered`, or `dead` after the last attempt (visible).
 * - A statement-level trigger on `audit_events` queues a delivery for every subscribed event in the
 *   SAME transaction as the event (so an event is never recorded without its deliveries), and
 *   NOTIFYs the deliverers. With no subscription at all it returns after one probe of an empty table.
 *   Webhook event types derived from audit events: docs/decisions/webhooks.md.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE transactions ADD COLUMN trace_id text`
  yield* sql`
    CREATE TABLE webhook_subscriptions (
      id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      url text NOT NULL,
      event_types text[] NOT NULL,
      description text,
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      secret_rotated_at timestamptz
    )`
  yield* sql`CREATE INDEX webhook_subscriptions_tenant ON webhook_subscriptions (tenant_id, created_at)`
  yield* sql`
    CREATE TABLE webhook_deliveries (
      id uuid PRIMARY KEY,
      subscription_id uuid NOT NULL REFERENCES webhook_subscriptions (id) ON DELETE CASCADE,
      tenant_id text NOT NULL,
      event_type text NOT NULL,
      audit_event_id uuid NOT NULL,
      payload jsonb NOT NULL,
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'processing', 'delivered', 'dead')),
      attempts integer NOT NULL DEFAULT 0,
      available_at timestamptz NOT NULL DEFAULT now(),
      lease_id uuid,
      lease_expires_at timestamptz,
      last_error text,
      last_status_code integer,
      delivered_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (subscription_id, audit_event_id, event_type)
    )`
  yield* sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (available_at) WHERE status IN ('pending', 'processing')`
  yield* sql`CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, created_at)`
  yield* sql`
    CREATE FUNCTION webhook_deliveries_enqueue() RETURNS trigger LANGUAGE plpgsql AS $$
    DECLARE queued integer;
    BEGIN
      IF NOT EXISTS (SELECT 1 FROM webhook_subscriptions) THEN RETURN NULL; END IF;
      WITH events AS (
        SELECT e.*, kind.webhook_type
        FROM new_events e
        CROSS JOIN LATERAL (VALUES
          (CASE WHEN e.event_type IN ('transaction.created', 'transaction.built', 'transaction.simulated',
              'transaction.policy_evaluated', 'transaction.approved', 'transaction.signed', 'transaction.submitted', 'transaction.confirmed',
              'transaction.failed', 'agent.paused') THEN e.event_type END),
          (CASE WHEN e.event_type = 'transaction.policy_evaluated' AND e.metadata->>'decision' = 'require_approval'
            THEN 'approval.waiting' END),
          (CASE WHEN e.event_type = 'policy.evaluated' AND e.metadata->>'decision' = 'deny'
            THEN 'policy.denied' END)
        ) AS kind(webhook_type)
        WHERE kind.webhook_type IS NOT NULL
      ), queued_rows AS (
        INSERT INTO webhook_deliveries (id, subscription_id, tenant_id, event_type, audit_event_id, payload)
        SELECT gen_random_uuid(), s.id, e.tenant_id, e.webhook_type, e.id,
          jsonb_build_object(
            'type', e.webhook_type,
            'timestamp', to_char(e.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
            'data', jsonb_strip_nulls(jsonb_build_object(
              'eventId', e.id, 'auditEventType', e.event_type, 'tenantId', e.tenant_id, 'message', e.message,
              'txId', e.tx_id, 'walletId', e.wallet_id, 'agentId', e.agent_id, 'protocol', e.protocol,
              'traceId', e.trace_id, 'metadata', e.metadata)))
        FROM events e
        JOIN webhook_subscriptions s ON s.tenant_id = e.tenant_id AND e.webhook_type = ANY (s.event_types)
        ON CONFLICT DO NOTHING
        RETURNING 1
      )
      SELECT count(*) INTO queued FROM queued_rows;
      IF queued > 0 THEN PERFORM pg_notify('webhook_deliveries', queued::text); END IF;
      RETURN NULL;
    END $$`
  yield* sql`
    CREATE TRIGGER audit_events_webhooks AFTER INSERT ON audit_events
    REFERENCING NEW TABLE AS new_events FOR EACH STATEMENT EXECUTE FUNCTION webhook_deliveries_enqueue()`
})
