/** Wallet rows in SQL, always filtered by tenant. */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { KeyBackend, Wallet, WalletProvider } from "../../schemas/wallet.js"
import { makeKeyset, type PageRequest, withPageKey } from "../db/keysetPage.js"
import { makeStatementBatch } from "../db/statementBatch.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

export const WalletRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  public_key: Schema.String,
  provider: WalletProvider,
  key_backend: KeyBackend,
  status: Wallet.fields.status,
  label: Schema.NullOr(Schema.String),
  created_at: Timestamp
})
export type WalletRow = typeof WalletRow.Type

const WalletPageRow = withPageKey(WalletRow)

const KeyedWalletRow = Schema.Struct({ ...WalletRow.fields, idempotency_request: Schema.NullOr(Schema.String) })

export interface StoredWallet {
  readonly wallet: Wallet
  readonly tenantId: string
  readonly keyBackend: KeyBackend
}

/** A wallet as another component may know it: its id, address and label (never its key backend). */
export const WalletAddress = Schema.Struct({ walletId: Schema.String, publicKey: Schema.String, label: Schema.NullOr(Schema.String) })
export type WalletAddress = typeof WalletAddress.Type

const custodyOf = (backend: KeyBackend) => (backend === "encrypted-file" || backend === "memory" ? "local" : "external")

export const toStoredWallet = (row: WalletRow): StoredWallet => ({
  tenantId: row.tenant_id,
  keyBackend: row.key_backend,
  wallet: {
    id: row.id,
    publicKey: row.public_key,
    provider: row.provider,
    status: row.status,
    ...(row.label === null ? {} : { label: row.label }),
    createdAt: row.created_at.toISOString(),
    keyProvenance: { backend: row.key_backend, custody: custodyOf(row.key_backend), deterministicAddressing: false }
  }
})

export class WalletRepo extends Effect.Service<WalletRepo>()("WalletRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * A new wallet row; with `idempotency`, undefined when the tenant's key is taken (its wallet is
     * `byIdempotencyKey`'s), so two creates racing with one key make one wallet.
     */
    const insert = (row: Omit<WalletRow, "created_at" | "status">, idempotency?: { readonly key: string; readonly request: string }) =>
      sql`
        INSERT INTO wallets (id, tenant_id, public_key, provider, key_backend, label, idempotency_key, idempotency_request)
        VALUES (${row.id}, ${row.tenant_id}, ${row.public_key}, ${row.provider}, ${row.key_backend}, ${row.label}, ${idempotency?.key ?? null}, ${idempotency?.request ?? null})
        ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
        RETURNING *
      `.pipe(decodeRows("wallets", WalletRow), Effect.map((rows) => (rows[0] === undefined ? undefined : toStoredWallet(rows[0]))), Effect.orDie)

    /** The tenant's wallet created with `key`, and the request that created it. */
    const byIdempotencyKey = (tenantId: string, key: string) =>
      sql`SELECT * FROM wallets WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`.pipe(
        decodeRows("wallets", KeyedWalletRow),
        Effect.map((rows) => (rows[0] === undefined ? undefined : { stored: toStoredWallet(rows[0]), request: rows[0].idempotency_request ?? "" })),
        Effect.orDie
      )

    /** readTenant null = every tenant (an unbound key without x-tenant-id). */
    const find = (id: string, readTenant: string | null) =>
      sql`
        SELECT * FROM wallets WHERE id = ${id} ${readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`}
      `.pipe(decodeRows("wallets", WalletRow), Effect.map((rows) => (rows.length === 0 ? undefined : toStoredWallet(rows[0]))), Effect.orDie)

    // Agent ticks read their wallet (thousands a second at scale): those reads share statements.
    const sharedReads = makeStatementBatch(
      (ids: ReadonlyArray<string>) =>
        sql`SELECT * FROM wallets WHERE id IN (SELECT q.element::uuid FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) AS q(element))`.pipe(
          decodeRows("wallets", WalletRow),
          Effect.map((rows) => {
            const byId = new Map(rows.map((row) => [String(row.id), row] as const))
            return ids.map((id) => {
              const row = byId.get(id)
              return row === undefined ? undefined : toStoredWallet(row)
            })
          }),
          Effect.orDie
        ),
      { maxBatch: 256, repeatable: true }
    )

    /** One wallet of any tenant, in a statement shared with concurrent reads (the agent runtime's ticks). */
    const findShared = (id: string) => sharedReads.submit(id)

    // Oldest first, along wallets_tenant_created (wallets_created without a tenant).
    const listOrder = makeKeyset(sql, [
      { column: "created_at", descending: false, type: "timestamptz" },
      { column: "id", descending: false, type: "uuid" }
    ])

    const list = (readTenant: string | null, options: PageRequest & { publicKey?: string }) =>
      Effect.gen(function* () {
        const conditions = [
          ...(readTenant === null ? [] : [sql`tenant_id = ${readTenant}`]),
          ...(options.publicKey === undefined ? [] : [sql`public_key = ${options.publicKey}`])
        ]
        const where = yield* listOrder.where(conditions, options)
        const rows = yield* sql`
          SELECT *, ${listOrder.keyColumn} FROM wallets WHERE ${where}
          ORDER BY ${listOrder.orderBy} LIMIT ${options.limit + 1} OFFSET ${options.offset}
        `.pipe(decodeRows("wallets", WalletPageRow), Effect.orDie)
        const counted = yield* listOrder.cappedTotal(sql`wallets`, conditions).pipe(Effect.orDie)
        const page = listOrder.pageOf(rows, options, counted)
        return { wallets: page.items.map((row) => toStoredWallet(row).wallet), ...page.info }
      })

    const activeOthersOfTenant = SqlSchema.findAll({
      Request: Schema.Struct({ tenantId: Schema.String, exceptWalletId: Schema.String, limit: Schema.Number }),
      Result: WalletAddress,
      execute: ({ exceptWalletId, limit, tenantId }) => sql`
        SELECT id AS "walletId", public_key AS "publicKey", label FROM wallets
        WHERE tenant_id = ${tenantId} AND id <> ${exceptWalletId} AND status = 'active'
        ORDER BY created_at, id LIMIT ${limit}
      `
    })

    /** The other active wallets of a tenant, oldest first (an agent's known wallets). */
    const listActiveOthers = (tenantId: string, exceptWalletId: string, limit: number) =>
      activeOthersOfTenant({ tenantId, exceptWalletId, limit }).pipe(Effect.orDie)

    return { insert, byIdempotencyKey, find, findShared, list, listActiveOthers }
  })
}) {}
