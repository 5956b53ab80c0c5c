/**
 * Policies in SQL: `policies` holds the current version of each policy, `policy_versions` every
 * version ever written (append-only; a trigger refuses UPDATE and DELETE). Every read filters by
 * tenant (`readTenant` null = every tenant). Rules are stored as given (the encoded JSON of the rule
 * schema) and returned as stored, so a version reads back byte-for-byte as it was written.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { Policy } from "../../schemas/policy.js"
import { makeKeyset, type PageRequest, withPageKey } from "../db/keysetPage.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

const PolicyRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  wallet_id: Schema.String,
  name: Schema.String,
  version: Schema.Number,
  active: Schema.Boolean,
  /** a shadow policy: never enforced, evaluated beside every decision (issue 34) */
  shadow: Schema.Boolean,
  rules_text: Schema.String,
  approvals_required: Schema.NullOr(Schema.Number),
  created_at: Timestamp,
  updated_at: Timestamp
})
type PolicyRow = typeof PolicyRow.Type

const PolicyPageRow = withPageKey(PolicyRow)

const KeyedPolicyRow = Schema.Struct({ ...PolicyRow.fields, idempotency_request: Schema.NullOr(Schema.String) })

/** The most approvals an active policy asks for (null: no active policy asks). */
const MaxApprovalsRow = Schema.Struct({ n: Schema.NullOr(Schema.Number) })

export interface StoredPolicyRow {
  readonly policy: Policy
  readonly tenantId: string
  /** The rules exactly as stored (JSON text), for the evaluator's compile cache. */
  readonly rulesText: string
}

/** The stored rules text as JSON; text that does not parse is returned as is (the evaluator denies it). */
export const parseStoredRules = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return text
  }
}

const toStored = (row: PolicyRow): StoredPolicyRow => ({
  tenantId: row.tenant_id,
  rulesText: row.rules_text,
  policy: {
    id: row.id,
    walletId: row.wallet_id,
    name: row.name,
    version: Number(row.version),
    active: row.active,
    ...(row.shadow ? { shadow: true } : {}),
    // Returned as stored: rules in their encoded wire form (amounts as numbers or decimal strings).
    rules: parseStoredRules(row.rules_text) as Policy["rules"],
    ...(row.approvals_required === null || row.approvals_required === undefined ? {} : { approvalsRequired: row.approvals_required }),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString()
  }
})

export interface NewPolicy {
  readonly id: string
  readonly tenantId: string
  readonly walletId: string
  readonly name: string
  readonly active: boolean
  /** In shadow: stored inactive, evaluated beside every decision, never enforced. */
  readonly shadow?: boolean | undefined
  /** Encoded rules (JSON-serialisable). */
  readonly rules: unknown
  readonly approvalsRequired?: number | undefined
  /** The create's idempotency key and the request it stands for (see `byIdempotencyKey`). */
  readonly idempotency?: { readonly key: string; readonly request: string } | undefined
}

export interface PolicyChange {
  readonly name?: string | undefined
  readonly active?: boolean | undefined
  /** Encoded rules; undefined keeps the current ones. */
  readonly rules?: unknown
  /** undefined keeps it; null clears it */
  readonly approvalsRequired?: number | null | undefined
  /** When set, the change applies only if the current version is still this one (else "stale"). */
  readonly expectedVersion?: number | undefined
}

export class PolicyRepo extends Effect.Service<PolicyRepo>()("PolicyRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const tenantFilter = (readTenant: string | null) => (readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`)
    // The columns of a PolicyRow, as every query here selects them.
    const rowColumns = sql.literal("id, tenant_id, wallet_id, name, version, active, shadow, rules::text AS rules_text, approvals_required, created_at, updated_at")

    const insertVersion = (row: PolicyRow) =>
      sql`
        INSERT INTO policy_versions (policy_id, version, tenant_id, wallet_id, name, active, rules, approvals_required, created_at)
        VALUES (${row.id}, ${row.version}, ${row.tenant_id}, ${row.wallet_id}, ${row.name}, ${row.active},
          ${row.rules_text}::jsonb, ${row.approvals_required}, ${row.updated_at})
      `

    /** The new policy, version 1; with `input.idempotency`, undefined when the tenant's key is taken (see `byIdempotencyKey`). */
    const create = (input: NewPolicy) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const [row] = yield* sql`
            INSERT INTO policies (id, tenant_id, wallet_id, name, version, active, shadow, rules, approvals_required, idempotency_key, idempotency_request)
            VALUES (${input.id}, ${input.tenantId}, ${input.walletId}, ${input.name}, 1, ${input.active && input.shadow !== true}, ${input.shadow === true}, ${JSON.stringify(input.rules)}::jsonb, ${input.approvalsRequired ?? null},
              ${input.idempotency?.key ?? null}, ${input.idempotency?.request ?? null})
            ON CONFLICT (tenant_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
            RETURNING ${rowColumns}
          `.pipe(decodeRows("policies", PolicyRow))
          if (row === undefined) return undefined
          yield* insertVersion(row)
          return toStored(row)
        })
      ).pipe(Effect.orDie, Effect.withSpan("PolicyRepo.create"))

    /** The tenant's policy created with `key` (as it stands now), and the request that created it. */
    const byIdempotencyKey = (tenantId: string, key: string) =>
      sql`SELECT ${rowColumns}, idempotency_request FROM policies WHERE tenant_id = ${tenantId} AND idempotency_key = ${key}`.pipe(
        decodeRows("policies", KeyedPolicyRow),
        Effect.map((rows) => (rows[0] === undefined ? undefined : { stored: toStored(rows[0]), request: rows[0].idempotency_request ?? "" })),
        Effect.orDie
      )

    /** Writes a new version (current version + 1) with the change applied; undefined when not visible. */
    const appendVersion = (id: string, readTenant: string | null, change: PolicyChange) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const current = yield* sql`
            SELECT ${rowColumns}
            FROM policies WHERE id = ${id} ${tenantFilter(readTenant)} FOR UPDATE
          `.pipe(decodeRows("policies", PolicyRow))
          if (current.length === 0) return undefined
          const before = current[0]
          if (change.expectedVersion !== undefined && Number(before.version) !== change.expectedVersion) return "stale" as const
          const rulesText = change.rules === undefined ? before.rules_text : JSON.stringify(change.rules)
          const [row] = yield* sql`
            UPDATE policies SET
              name = ${change.name ?? before.name},
              active = ${change.active ?? before.active},
              shadow = ${change.active === true ? false : before.shadow},
              rules = ${rulesText}::jsonb,
              approvals_required = ${change.approvalsRequired === undefined ? before.approvals_required : change.approvalsRequired},
              version = version + 1,
              updated_at = clock_timestamp()
            WHERE id = ${id}
            RETURNING ${rowColumns}
          `.pipe(decodeRows("policies", PolicyRow))
          yield* insertVersion(row)
          return toStored(row)
        })
      ).pipe(Effect.orDie, Effect.withSpan("PolicyRepo.appendVersion"))

    const find = (id: string, readTenant: string | null) =>
      sql`
        SELECT ${rowColumns}
        FROM policies WHERE id = ${id} ${tenantFilter(readTenant)}
      `.pipe(decodeRows("policies", PolicyRow), Effect.map((rows) => (rows.length === 0 ? undefined : toStored(rows[0]))), Effect.orDie)

    const versionRows = (id: string, readTenant: string | null, version: number | null) =>
      sql`
        SELECT v.policy_id AS id, v.tenant_id, v.wallet_id, v.name, v.version, v.active, p.shadow, v.rules::text AS rules_text, v.approvals_required,
          p.created_at, v.created_at AS updated_at
        FROM policy_versions v JOIN policies p ON p.id = v.policy_id
        WHERE v.policy_id = ${id} ${readTenant === null ? sql`` : sql`AND v.tenant_id = ${readTenant}`}
          ${version === null ? sql`` : sql`AND v.version = ${version}`}
        ORDER BY v.version
      `.pipe(decodeRows("policy_versions", PolicyRow), Effect.map((rows) => rows.map(toStored)), Effect.orDie)

    const versionOrder = makeKeyset(sql, [{ column: "v.version", descending: false, type: "integer" }])

    /** A page of the versions, oldest first (a version's updatedAt is when it was written). */
    const listVersions = (id: string, readTenant: string | null, page: PageRequest) =>
      Effect.gen(function* () {
        const conditions = [sql`v.policy_id = ${id}`, ...(readTenant === null ? [] : [sql`v.tenant_id = ${readTenant}`])]
        const where = yield* versionOrder.where(conditions, page)
        const rows = yield* sql`
          SELECT v.policy_id AS id, v.tenant_id, v.wallet_id, v.name, v.version, v.active, p.shadow, v.rules::text AS rules_text, v.approvals_required,
            p.created_at, v.created_at AS updated_at, ${versionOrder.keyColumn}
          FROM policy_versions v JOIN policies p ON p.id = v.policy_id
          WHERE ${where} ORDER BY ${versionOrder.orderBy} LIMIT ${page.limit + 1} OFFSET ${page.offset}
        `.pipe(decodeRows("policy_versions", PolicyPageRow), Effect.orDie)
        const counted = yield* versionOrder.cappedTotal(sql`policy_versions v`, conditions).pipe(Effect.orDie)
        const { items, info } = versionOrder.pageOf(rows, page, counted)
        return { versions: items.map((row) => toStored(row).policy), ...info }
      })

    const findVersion = (id: string, version: number, readTenant: string | null) =>
      versionRows(id, readTenant, version).pipe(Effect.map((rows) => rows[0]))

    const listOrder = makeKeyset(sql, [
      { column: "created_at", descending: false, type: "timestamptz" },
      { column: "id", descending: false, type: "uuid" }
    ])

    /** The policies `readTenant` sees (all tenants for null), optionally of one wallet and by `active`, oldest first, a page at a time. */
    const list = (
      readTenant: string | null,
      filter: { readonly walletId?: string | undefined; readonly active?: boolean | undefined },
      page: PageRequest
    ) =>
      Effect.gen(function* () {
        const conditions = [
          ...(filter.walletId === undefined ? [] : [sql`wallet_id = ${filter.walletId}`]),
          ...(filter.active === undefined ? [] : [sql`active = ${filter.active}`]),
          ...(readTenant === null ? [] : [sql`tenant_id = ${readTenant}`])
        ]
        const where = yield* listOrder.where(conditions, page)
        const rows = yield* sql`
          SELECT ${rowColumns}, ${listOrder.keyColumn}
          FROM policies WHERE ${where}
          ORDER BY ${listOrder.orderBy} LIMIT ${page.limit + 1} OFFSET ${page.offset}
        `.pipe(decodeRows("policies", PolicyPageRow), Effect.orDie)
        const counted = yield* listOrder.cappedTotal(sql`policies`, conditions).pipe(Effect.orDie)
        const { items, info } = listOrder.pageOf(rows, page, counted)
        return { policies: items.map((row) => toStored(row).policy), ...info }
      })

    const listByWallet = (walletId: string, readTenant: string | null, page: PageRequest) => list(readTenant, { walletId }, page)

    /** The active policies of a wallet in its tenant, for evaluation. Fails (not dies) so the engine can deny. */
    const activeForWallet = (walletId: string, tenantId: string) =>
      sql`
        SELECT ${rowColumns}
        FROM policies WHERE wallet_id = ${walletId} AND tenant_id = ${tenantId} AND active
        ORDER BY created_at, id
      `.pipe(decodeRows("policies", PolicyRow), Effect.map((rows) => rows.map(toStored)))

    /** The wallet's shadow policies (issue 34): evaluated beside every decision, never enforced. */
    const shadowForWallet = (walletId: string, tenantId: string) =>
      sql`
        SELECT ${rowColumns}
        FROM policies WHERE wallet_id = ${walletId} AND tenant_id = ${tenantId} AND shadow AND NOT active
        ORDER BY created_at, id
      `.pipe(decodeRows("policies", PolicyRow), Effect.map((rows) => rows.map(toStored)))

    /** The most distinct approvals any active policy of the wallet asks for (1 when none does; issue 31). */
    const approvalsRequiredFor = (walletId: string, tenantId: string) =>
      sql`
        SELECT max(approvals_required) AS n FROM policies WHERE wallet_id = ${walletId} AND tenant_id = ${tenantId} AND active
      `.pipe(decodeRows("policies", MaxApprovalsRow), Effect.map((rows) => rows[0]?.n ?? 1), Effect.orDie)

    return { create, byIdempotencyKey, appendVersion, find, listVersions, findVersion, list, listByWallet, activeForWallet, shadowForWallet, approvalsRequiredFor }
  })
}) {}
