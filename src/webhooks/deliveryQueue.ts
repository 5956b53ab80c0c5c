/**
 * The durable queue of webhook deliveries, built as the outbox is (outbox.ts): a claim takes due rows
 * (pending and due, or processing with an expired lease: its deliverer died) with FOR UPDATE SKIP
 * LOCKED and a lease, so any number of deliverers in any number of processes share it. Rows are
 * queued by the audit_events trigger (migration 0012), which NOTIFYs `webhook_deliveries`; a failed
 * attempt wakes this process's deliverers when its retry is due. Deliverers also poll every
 * WEBHOOK_POLL_MS, only as the safety net (a lost LISTEN, the leases and retries of a process that died).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted, Schema, Stream } from "effect"
import { AppConfig } from "../config.js"
import { makeDoorbell } from "../db/doorbell.js"
import { openWebhookSecret, webhookSealingKey } from "./secretSealing.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"
import { Notifications, Relistened } from "../db/notifications.js"

const CHANNEL = "webhook_deliveries"
/** A delivery's HTTP call is bounded by WEBHOOK_TIMEOUT_MS; the lease outlives it by this much. */
const LEASE_MARGIN_MS = 30_000

export interface ClaimedDelivery {
  readonly id: string
  readonly leaseId: string
  readonly attempts: number
  readonly eventType: string
  readonly payload: string
  readonly url: string
  /** The subscription's current secret; undefined when it is sealed under a key this process lacks. */
  readonly secret: string | undefined
  readonly createdAt: Date
}

const ClaimRow = Schema.Struct({
  subscription_id: Schema.String,
  id: Schema.String,
  lease_id: Schema.String,
  attempts: Schema.Number,
  event_type: Schema.String,
  payload: Schema.String,
  url: Schema.String,
  secret: Schema.String,
  created_at: Timestamp
})
type ClaimRow = typeof ClaimRow.Type

const DeliveryStatusRow = Schema.Struct({ status: Schema.String })

/** How many deliveries are in a status. */
const StatusCountRow = Schema.Struct({ status: Schema.String, n: Schema.String })

/** Exponential backoff after `attempts` failed attempts: base, 2x base, 4x base ... capped. */
export const backoffAfter = (attempts: number, baseMs: number, maxMs: number) =>
  Math.min(maxMs, baseMs * 2 ** Math.max(0, Math.min(attempts - 1, 30)))

export class WebhookDeliveryQueue extends Effect.Service<WebhookDeliveryQueue>()("WebhookDeliveryQueue", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const notifications = yield* Notifications
    const config = yield* AppConfig
    const settings = config.webhooks
    const leaseMs = settings.timeoutMs + LEASE_MARGIN_MS
    const sealingKey = Option.getOrUndefined(Option.map(settings.secretKey, (key) => webhookSealingKey(Redacted.value(key))))
    const doorbell = yield* makeDoorbell(settings.pollMs)

    // Deliveries announced while the LISTEN connection was being replaced (Relistened) were not heard: look once.
    yield* notifications.listen(CHANNEL).pipe(
      Stream.runForEach((payload) => (payload === Relistened ? doorbell.ring() : doorbell.ringAnnounced(payload))),
      Effect.forkScoped
    )

    /** The oldest due delivery with its subscription's URL and current secret, leased; undefined when none is due. */
    const claim = sql`
      WITH claimed AS (
        UPDATE webhook_deliveries SET status = 'processing', attempts = attempts + 1, lease_id = gen_random_uuid(),
          lease_expires_at = now() + ${`${leaseMs} milliseconds`}::interval, updated_at = now()
        WHERE id = (
          SELECT id FROM webhook_deliveries
          WHERE (status = 'pending' AND available_at <= now()) OR (status = 'processing' AND lease_expires_at < now())
          ORDER BY available_at, created_at, id
          LIMIT 1
          FOR UPDATE SKIP LOCKED
        )
        RETURNING *
      )
      SELECT c.id, c.subscription_id, c.lease_id, c.attempts, c.event_type, c.payload::text AS payload, c.created_at, s.url, s.secret
      FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id
    `.pipe(
      decodeRows("webhook_deliveries", ClaimRow),
      Effect.map((rows): ClaimedDelivery | undefined => {
        const row = rows[0]
        if (row === undefined) return undefined
        return {
          id: row.id, leaseId: row.lease_id, attempts: row.attempts, eventType: row.event_type, payload: row.payload,
          url: row.url, secret: openWebhookSecret(sealingKey, row.subscription_id, row.secret), createdAt: row.created_at
        }
      }),
      Effect.orDie
    )

    /** The receiver answered 2xx: delivered, never sent again. */
    const delivered = (delivery: ClaimedDelivery, statusCode: number) =>
      sql`
        UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), last_status_code = ${statusCode},
          last_error = NULL, lease_id = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = ${delivery.id} AND lease_id = ${delivery.leaseId}
      `.pipe(Effect.asVoid, Effect.orDie)

    /** A failed attempt: pending again after the backoff, or `dead` at WEBHOOK_MAX_ATTEMPTS. */
    const failed = (delivery: ClaimedDelivery, error: string, statusCode: number | null) => {
      const backoffMs = backoffAfter(delivery.attempts, settings.backoffMs, settings.maxBackoffMs)
      return sql`
        UPDATE webhook_deliveries SET
          status = CASE WHEN attempts >= ${settings.maxAttempts} THEN 'dead' ELSE 'pending' END,
          available_at = now() + ${`${backoffMs} milliseconds`}::interval,
          last_error = ${error.slice(0, 500)}, last_status_code = ${statusCode},
          lease_id = NULL, lease_expires_at = NULL, updated_at = now()
        WHERE id = ${delivery.id} AND lease_id = ${delivery.leaseId}
        RETURNING status
      `.pipe(
        decodeRows("webhook_deliveries", DeliveryStatusRow),
        Effect.map((rows) => rows[0]?.status),
        // The retry wakes this process's deliverers when it is due, not the next poll.
        Effect.tap((status) => (status === "pending" ? doorbell.ringAfter(backoffMs) : Effect.void)),
        Effect.orDie
      )
    }

    /** Waits for a ring (a NOTIFY, a retry come due) or the poll tick (doorbell.ts). */
    const waitForWork = doorbell.waitForWork

    const depth = sql`
      SELECT status, count(*)::text AS n FROM webhook_deliveries WHERE status IN ('pending', 'processing', 'dead') GROUP BY status
    `.pipe(
      decodeRows("webhook_deliveries", StatusCountRow),
      Effect.map((rows) => {
        const counts = { pending: 0, processing: 0, dead: 0 }
        for (const row of rows) counts[row.status as keyof typeof counts] = Number(row.n)
        return counts
      }),
      Effect.orDie
    )

    return { claim, delivered, failed, waitForWork, depth }
  })
}) {}
