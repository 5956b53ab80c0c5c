/**
 * The webhooks component's tables: subscriptions (per tenant) and the deliveries a subscriber can
 * inspect (the dead-letter state is visible here). Every query filters by the caller's tenant; the
 * secret leaves this file only from `create` and `rotateSecret`, the two answers that show it (a create
 * repeated with its idempotency key shows it again: its first answer may never have arrived).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option, Redacted, Schema } from "effect"
import { randomUUID } from "node:crypto"
import type { CreateWebhookBody, DeliveriesQuery, Webhook } from "../../schemas/webhook.js"
import { makeKeyset, type PageRequest, withPageKey } from "../db/keysetPage.js"
import { canSee, type CallerInfo } from "../gateway/caller.js"
import { AppConfig } from "../config.js"
import { openWebhookSecret, sealWebhookSecret, webhookSealingKey } from "./secretSealing.js"
import { Conflict } from "../../schemas/errors.js"
import { newWebhookSecret } from "./webhookSecret.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"
import { idempotencyKeyTaken } from "../gateway/idempotencyKeyRefusal.js"

const SubscriptionRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  url: Schema.String,
  event_types: Schema.Array(Schema.String),
  description: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  secret_rotated_at: Schema.NullOr(Timestamp)
})
type SubscriptionRow = typeof SubscriptionRow.Type

const SubscriptionWithSecretRow = Schema.Struct({ ...SubscriptionRow.fields, secret: Schema.String })

/** The same request as the one that made `row`: its URL, event types (as a set) and description. */
const sameSubscription = (row: SubscriptionRow, body: CreateWebhookBody) =>
  row.url === body.url &&
  (row.description ?? undefined) === body.description &&
  [...new Set(row.event_types)].sort().join() === [...new Set(body.eventTypes)].sort().join()

const SubscriptionPageRow = withPageKey(SubscriptionRow)

const DeliveryRow = Schema.Struct({
  id: Schema.String,
  event_type: Schema.String,
  audit_event_id: Schema.String,
  status: Schema.String,
  attempts: Schema.Number,
  available_at: Timestamp,
  last_error: Schema.NullOr(Schema.String),
  last_status_code: Schema.NullOr(Schema.Number),
  delivered_at: Schema.NullOr(Timestamp),
  created_at: Timestamp,
  payload: Schema.Unknown
})
type DeliveryRow = typeof DeliveryRow.Type

const DeliveryPageRow = withPageKey(DeliveryRow)

const DeliveryIdRow = Schema.Struct({ id: Schema.String })

const webhookOf = (row: SubscriptionRow): Webhook => ({
  id: row.id,
  tenantId: row.tenant_id,
  url: row.url,
  eventTypes: [...row.event_types],
  description: row.description,
  createdAt: row.created_at.toISOString(),
  secretRotatedAt: row.secret_rotated_at === null ? null : row.secret_rotated_at.toISOString()
})

const deliveryOf = (row: DeliveryRow) => ({
  id: row.id,
  eventType: row.event_type,
  auditEventId: row.audit_event_id,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.status === "pending" ? row.available_at.toISOString() : null,
  lastError: row.last_error,
  lastStatusCode: row.last_status_code,
  deliveredAt: row.delivered_at === null ? null : row.delivered_at.toISOString(),
  createdAt: row.created_at.toISOString(),
  payload: row.payload
})

const COLUMNS = "id, tenant_id, url, event_types, description, created_at, secret_rotated_at"

export class WebhookRepo extends Effect.Service<WebhookRepo>()("WebhookRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const sealingKey = Option.getOrUndefined(Option.map(config.webhooks.secretKey, (key) => webhookSealingKey(Redacted.value(key))))

    /**
     * A new subscription with a new secret (`created`), or, for an `idempotencyKey` the tenant used before
     * with the same request, the subscription it made, with its secret as it is now: the create's answer
     * may have been lost, and a second subscription would leave the first one's secret unseen.
     */
    const create = (caller: CallerInfo, body: CreateWebhookBody) =>
      Effect.gen(function* () {
        const secret = newWebhookSecret()
        const id = randomUUID()
        const eventTypes = [...new Set(body.eventTypes)]
        const key = body.idempotencyKey ?? null
        const rows = yield* sql`
          INSERT INTO webhook_subscriptions (id, tenant_id, url, event_types, description, secret, idempotency_key)
          VALUES (${id}, ${caller.tenant}, ${body.url}, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(eventTypes)}::jsonb)), ${body.description ?? null}, ${sealWebhookSecret(sealingKey, id, secret)}, ${key})
          ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
          RETURNING ${sql.unsafe(COLUMNS)}
        `.pipe(decodeRows("webhook_subscriptions", SubscriptionRow), Effect.orDie)
        if (rows[0] !== undefined) return { webhook: { ...webhookOf(rows[0]), secret }, created: true }
        const earlier = (yield* sql`
          SELECT ${sql.unsafe(COLUMNS)}, secret FROM webhook_subscriptions WHERE tenant_id = ${caller.tenant} AND idempotency_key = ${key}
        `.pipe(decodeRows("webhook_subscriptions", SubscriptionWithSecretRow), Effect.orDie))[0]
        if (earlier === undefined || !sameSubscription(earlier, body)) {
          return yield* Effect.fail(idempotencyKeyTaken(key ?? "", earlier === undefined ? undefined : { resource: "webhook", id: earlier.id }))
        }
        const opened = openWebhookSecret(sealingKey, earlier.id, earlier.secret)
        if (opened === undefined) {
          return yield* Effect.fail(new Conflict({
            message: `webhook ${earlier.id}: its secret is sealed under another WEBHOOK_SECRET_KEY than this service's; rotate it to see a new one`,
            currentState: "sealed"
          }))
        }
        return { webhook: { ...webhookOf(earlier), secret: opened }, created: false }
      })

    const find = (caller: CallerInfo, id: string) =>
      sql`SELECT ${sql.unsafe(COLUMNS)} FROM webhook_subscriptions WHERE id = ${id}`.pipe(
        decodeRows("webhook_subscriptions", SubscriptionRow),
        Effect.map((rows) => (rows[0] !== undefined && canSee(caller, rows[0].tenant_id) ? webhookOf(rows[0]) : undefined)),
        Effect.orDie
      )

    // Newest first (subscriptions and deliveries alike).
    const newestFirst = makeKeyset(sql, [
      { column: "created_at", descending: true, type: "timestamptz" },
      { column: "id", descending: false, type: "uuid" }
    ])

    const list = (caller: CallerInfo, page: PageRequest) =>
      Effect.gen(function* () {
        const tenant = caller.readTenant
        const conditions = tenant === null ? [] : [sql`tenant_id = ${tenant}`]
        const where = yield* newestFirst.where(conditions, page)
        const rows = yield* sql`
          SELECT ${sql.unsafe(COLUMNS)}, ${newestFirst.keyColumn} FROM webhook_subscriptions WHERE ${where}
          ORDER BY ${newestFirst.orderBy} LIMIT ${page.limit + 1} OFFSET ${page.offset}
        `.pipe(decodeRows("webhook_subscriptions", SubscriptionPageRow), Effect.orDie)
        const counted = yield* newestFirst.cappedTotal(sql`webhook_subscriptions`, conditions).pipe(Effect.orDie)
        const { items, info } = newestFirst.pageOf(rows, page, counted)
        return { webhooks: items.map(webhookOf), ...info }
      })

    /** Deletes the subscription and, with it, its deliveries not yet made. */
    const remove = (caller: CallerInfo, id: string) =>
      Effect.gen(function* () {
        const found = yield* find(caller, id)
        if (found === undefined) return false
        yield* sql`DELETE FROM webhook_subscriptions WHERE id = ${id}`
        return true
      }).pipe(Effect.orDie)

    /** A new secret at once: every delivery from now on (retries too) is signed with it. */
    const rotateSecret = (caller: CallerInfo, id: string) =>
      Effect.gen(function* () {
        const found = yield* find(caller, id)
        if (found === undefined) return undefined
        const secret = newWebhookSecret()
        const rows = yield* sql`
          UPDATE webhook_subscriptions SET secret = ${sealWebhookSecret(sealingKey, id, secret)}, secret_rotated_at = now(), updated_at = now()
          WHERE id = ${id} RETURNING ${sql.unsafe(COLUMNS)}
        `.pipe(decodeRows("webhook_subscriptions", SubscriptionRow))
        return rows[0] === undefined ? undefined : { ...webhookOf(rows[0]), secret }
      }).pipe(Effect.orDie)

    const deliveries = (caller: CallerInfo, id: string, query: DeliveriesQuery) =>
      Effect.gen(function* () {
        const found = yield* find(caller, id)
        if (found === undefined) return undefined
        const conditions = [sql`subscription_id = ${id}`, ...(query.status === undefined ? [] : [sql`status = ${query.status}`])]
        const where = yield* newestFirst.where(conditions, query)
        const rows = yield* sql`
          SELECT id, event_type, audit_event_id, status, attempts, available_at, last_error, last_status_code, delivered_at, created_at, payload,
            ${newestFirst.keyColumn}
          FROM webhook_deliveries WHERE ${where}
          ORDER BY ${newestFirst.orderBy} LIMIT ${query.limit + 1} OFFSET ${query.offset}
        `.pipe(decodeRows("webhook_deliveries", DeliveryPageRow), Effect.orDie)
        const counted = yield* newestFirst.cappedTotal(sql`webhook_deliveries`, conditions).pipe(Effect.orDie)
        const { items, info } = newestFirst.pageOf(rows, query, counted)
        return { deliveries: items.map(deliveryOf), ...info }
      })

    /** A dead delivery goes back to the queue for a fresh series of attempts; false when it is not dead. */
    const redeliver = (caller: CallerInfo, id: string, deliveryId: string) =>
      Effect.gen(function* () {
        const found = yield* find(caller, id)
        if (found === undefined) return "NoSubscription" as const
        const rows = yield* sql`
          WITH requeued AS (
            UPDATE webhook_deliveries SET status = 'pending', attempts = 0, available_at = now(), last_error = NULL, updated_at = now()
            WHERE id = ${deliveryId} AND subscription_id = ${id} AND status = 'dead' RETURNING id
          )
          SELECT id, pg_notify('webhook_deliveries', '1') FROM requeued
        `.pipe(decodeRows("webhook_deliveries", DeliveryIdRow))
        return rows.length === 1 ? ("Requeued" as const) : ("NotDead" as const)
      }).pipe(Effect.orDie)

    return { create, find, list, remove, rotateSecret, deliveries, redeliver }
  })
}) {}
