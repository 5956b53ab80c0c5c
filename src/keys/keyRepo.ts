/**
 * The `api_keys` table (owner: the keys component). Every change NOTIFYs `api_keys` with the key's id in
 * the same statement, so PostgreSQL delivers it to every gateway process when the change commits (never
 * for a rollback). Queries a caller makes filter by its tenant; the hash leaves this file only towards the
 * gateway's in-memory key ring (`activeKeys`, `gatewayKey`), never in an answer.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { ApiKey, ApiKeysQuery } from "../../schemas/apiKey.js"
import { makeKeyset, withPageKey } from "../db/keysetPage.js"
import { prefixOf } from "./keyFormat.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

export const KEYS_CHANNEL = "api_keys"

const KeyRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  scopes: Schema.Array(Schema.String),
  agent_id: Schema.NullOr(Schema.String),
  label: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  created_by: Schema.String,
  expires_at: Schema.NullOr(Timestamp),
  revoked_at: Schema.NullOr(Timestamp),
  revoked_by: Schema.NullOr(Schema.String),
  last_used_at: Schema.NullOr(Timestamp),
  rotated_from: Schema.NullOr(Schema.String),
  replaced_by: Schema.NullOr(Schema.String),
  expired: Schema.Boolean
})
type KeyRow = typeof KeyRow.Type

const KeyPageRow = withPageKey(KeyRow)

/** What the gateway needs of a key that may authenticate. */
export const GatewayKeyRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  scopes: Schema.Array(Schema.String),
  agent_id: Schema.NullOr(Schema.String),
  key_hash: Schema.instanceOf(Buffer),
  expires_at: Schema.NullOr(Timestamp),
  revoked: Schema.Boolean
})
export type GatewayKeyRow = typeof GatewayKeyRow.Type

const KeyedKeyRow = Schema.Struct({ ...KeyRow.fields, idempotency_request: Schema.NullOr(Schema.String) })

export interface NewKeyRow {
  readonly id: string
  readonly tenantId: string
  readonly scopes: ReadonlyArray<string>
  readonly agentId: string | null
  readonly label: string | null
  readonly digest: Buffer
  readonly createdBy: string
  readonly expiresAt: Date | null
  readonly rotatedFrom: string | null
  /** An issue's idempotency key and the request it stands for (see `byIdempotencyKey`); a second row with the key is refused by the unique index. */
  readonly idempotency?: { readonly key: string; readonly request: string } | undefined
}

const isoOrNull = (value: Date | null) => (value === null ? null : value.toISOString())

const keyOf = (row: KeyRow): ApiKey => ({
  id: row.id,
  prefix: prefixOf(row.id),
  tenantId: row.tenant_id,
  scopes: [...row.scopes],
  agentId: row.agent_id,
  label: row.label,
  status: row.revoked_at !== null ? "revoked" : row.expired ? "expired" : "active",
  createdAt: row.created_at.toISOString(),
  createdBy: row.created_by,
  expiresAt: isoOrNull(row.expires_at),
  revokedAt: isoOrNull(row.revoked_at),
  revokedBy: row.revoked_by,
  lastUsedAt: isoOrNull(row.last_used_at),
  rotatedFrom: row.rotated_from,
  replacedBy: row.replaced_by
})

export class ApiKeyRepo extends Effect.Service<ApiKeyRepo>()("ApiKeyRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(`id, tenant_id, scopes, agent_id, label, created_at, created_by, expires_at, revoked_at, revoked_by,
      last_used_at, rotated_from, replaced_by, (expires_at IS NOT NULL AND expires_at <= now()) AS expired`)
    const visible = (readTenant: string | null) => (readTenant === null ? sql`true` : sql`tenant_id = ${readTenant}`)
    const notify = (id: string) => sql`pg_notify(${KEYS_CHANNEL}, ${id})`

    /** Inserts a key (in the caller's SQL transaction, if any) and announces it. */
    const insert = (key: NewKeyRow) =>
      sql`
        INSERT INTO api_keys (id, tenant_id, scopes, agent_id, label, key_hash, created_by, expires_at, rotated_from, idempotency_key, idempotency_request)
        VALUES (${key.id}, ${key.tenantId}, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(key.scopes)}::jsonb)),
          ${key.agentId}, ${key.label}, ${key.digest}, ${key.createdBy}, ${key.expiresAt}, ${key.rotatedFrom},
          ${key.idempotency?.key ?? null}, ${key.idempotency?.request ?? null})
        RETURNING ${columns}, ${notify(key.id)} AS notified
      `.pipe(decodeRows("api_keys", KeyRow), Effect.map((rows) => keyOf(rows[0]!)), Effect.orDie)

    /** The tenant's key issued with `key` (never its secret), and the request that issued it. */
    const byIdempotencyKey = (tenantId: string, key: string) =>
      sql`SELECT ${columns}, idempotency_request FROM api_keys WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`.pipe(
        decodeRows("api_keys", KeyedKeyRow),
        Effect.map((rows) => (rows[0] === undefined ? undefined : { key: keyOf(rows[0]), request: rows[0].idempotency_request ?? "" })),
        Effect.orDie
      )

    const find = (readTenant: string | null, id: string) =>
      sql`SELECT ${columns} FROM api_keys WHERE id = ${id} AND ${visible(readTenant)}`.pipe(
        decodeRows("api_keys", KeyRow),
        Effect.map((rows) => (rows[0] === undefined ? undefined : keyOf(rows[0]))),
        Effect.orDie
      )

    const statusFilter = (status: ApiKeysQuery["status"]) => {
      switch (status) {
        case undefined: return sql`true`
        case "revoked": return sql`revoked_at IS NOT NULL`
        case "expired": return sql`revoked_at IS NULL AND expires_at <= now()`
        case "active": return sql`revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`
      }
    }

    // Newest first; the id (unique) breaks ties so a cursor is exact.
    const newestFirst = makeKeyset(sql, [
      { column: "created_at", descending: true, type: "timestamptz" },
      { column: "id", descending: false, type: "text" }
    ])

    const list = (readTenant: string | null, query: ApiKeysQuery) =>
      Effect.gen(function* () {
        const conditions = [
          visible(readTenant),
          statusFilter(query.status),
          query.agentId === undefined ? sql`true` : sql`agent_id = ${query.agentId}`
        ]
        const where = yield* newestFirst.where(conditions, query)
        const rows = yield* sql`
          SELECT ${columns}, ${newestFirst.keyColumn} FROM api_keys WHERE ${where}
          ORDER BY ${newestFirst.orderBy} LIMIT ${query.limit + 1} OFFSET ${query.offset}
        `.pipe(decodeRows("api_keys", KeyPageRow), Effect.orDie)
        const counted = yield* newestFirst.cappedTotal(sql`api_keys`, conditions).pipe(Effect.orDie)
        const { items, info } = newestFirst.pageOf(rows, query, counted)
        return { keys: items.map(keyOf), ...info }
      })

    /** Revokes a key the caller sees; a key already revoked keeps its first revocation. Undefined: not found. */
    const revoke = (readTenant: string | null, id: string, revokedBy: string, reason: string | null) =>
      sql`
        UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now()), revoked_by = COALESCE(revoked_by, ${revokedBy}),
          revoke_reason = CASE WHEN revoked_at IS NULL THEN ${reason} ELSE revoke_reason END
        WHERE id = ${id} AND ${visible(readTenant)}
        RETURNING ${columns}, ${notify(id)} AS notified
      `.pipe(decodeRows("api_keys", KeyRow), Effect.map((rows) => (rows[0] === undefined ? undefined : keyOf(rows[0]))), Effect.orDie)

    /** A key the caller sees, locked until the caller's SQL transaction ends (revoke, rotate). */
    const lock = (readTenant: string | null, id: string) =>
      sql`SELECT ${columns} FROM api_keys WHERE id = ${id} AND ${visible(readTenant)} FOR UPDATE`.pipe(
        decodeRows("api_keys", KeyRow),
        Effect.map((rows) => (rows[0] === undefined ? undefined : keyOf(rows[0]))),
        Effect.orDie
      )

    /** The old key of a rotation: it works `graceSeconds` more (never longer than it would have) and names its successor. */
    const retire = (id: string, successor: string, graceSeconds: number) =>
      sql`
        UPDATE api_keys SET replaced_by = ${successor},
          expires_at = LEAST(COALESCE(expires_at, 'infinity'::timestamptz), now() + make_interval(secs => ${graceSeconds}))
        WHERE id = ${id}
        RETURNING ${columns}, ${notify(id)} AS notified
      `.pipe(decodeRows("api_keys", KeyRow), Effect.map((rows) => keyOf(rows[0]!)), Effect.orDie)

    const gatewayColumns = sql.literal("id, tenant_id, scopes, agent_id, key_hash, expires_at, revoked_at IS NOT NULL AS revoked")

    /** Every key that may still authenticate (the gateway's start and its safety-net reload). */
    const activeKeys = sql`
      SELECT ${gatewayColumns} FROM api_keys WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
    `.pipe(decodeRows("api_keys", GatewayKeyRow), Effect.orDie)

    /** One key as the gateway needs it after a NOTIFY (revoked ones too: the gateway forgets them). */
    const gatewayKey = (id: string) =>
      sql`SELECT ${gatewayColumns} FROM api_keys WHERE id = ${id}`.pipe(decodeRows("api_keys", GatewayKeyRow), Effect.map((rows) => rows[0]), Effect.orDie)

    /** Last uses, in one statement for the batch; a time never moves backwards. */
    const touch = (uses: ReadonlyArray<{ readonly id: string; readonly at: string }>) =>
      sql`
        UPDATE api_keys AS k SET last_used_at = GREATEST(COALESCE(k.last_used_at, u.at), u.at)
        FROM jsonb_to_recordset(${JSON.stringify(uses)}::jsonb) AS u(id text, at timestamptz)
        WHERE k.id = u.id
      `.pipe(Effect.asVoid)

    return { insert, byIdempotencyKey, find, list, revoke, lock, retire, activeKeys, gatewayKey, touch }
  })
}) {}
