/**
 * The kill switch's table (signing_freezes, owned here: what may be signed is the wallet's rule;
 * docs/decisions/freeze.md). A freeze of a tenant, a wallet or an agent commits under an exclusive
 * advisory lock of its tenant; every signing (the signer actor, the wallet engine process) checks the
 * freezes under the same lock held shared until the signature exists. So a signature is either made
 * before the freeze committed, or sees it and is refused: nothing of a frozen scope is signed after the
 * commit, whichever process signs.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { type Freeze, FreezeScope } from "../../schemas/freeze.js"
import { makeKeyset, type PageRequest, withPageKey } from "../db/keysetPage.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

/** The advisory lock class of freezes (the second key is the tenant's hash: a collision only waits longer). */
const FREEZE_LOCK_CLASS = 34034

/**
 * The shared freeze lock of the tenant in `tenantColumn`, as an expression a signer's read takes for each row it
 * reads (inside the signer's SQL transaction, held until it ends); the read must be ordered by that column, so
 * tenants are locked in one order. Then `checkSigning` reads the freezes in a statement of its own: one whose
 * snapshot is taken after the locks, so it sees every freeze committed before them.
 */
export const sharedFreezeLockOf = (sql: SqlClient.SqlClient, tenantColumn: string) =>
  sql`pg_advisory_xact_lock_shared(${FREEZE_LOCK_CLASS}, hashtext(${sql(tenantColumn)}))`

const FreezeRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  scope: FreezeScope,
  target_id: Schema.String,
  reason: Schema.String,
  frozen_by: Schema.String,
  frozen_at: Timestamp,
  unfrozen_at: Schema.NullOr(Timestamp),
  unfrozen_by: Schema.NullOr(Schema.String),
  unfreeze_reason: Schema.NullOr(Schema.String)
})
type FreezeRow = typeof FreezeRow.Type

/** A freeze covering the subject at `ord` (see coveringRows). */
const FreezeRowOfSubject = Schema.Struct({ ...FreezeRow.fields, ord: Schema.Number })

const FreezePageRow = withPageKey(FreezeRow)

const toFreeze = (row: FreezeRow): Freeze => ({
  id: row.id,
  tenantId: row.tenant_id,
  scope: row.scope,
  targetId: row.target_id,
  reason: row.reason,
  active: row.unfrozen_at === null,
  frozenBy: row.frozen_by,
  frozenAt: row.frozen_at.toISOString(),
  unfrozenAt: row.unfrozen_at === null ? null : row.unfrozen_at.toISOString(),
  unfrozenBy: row.unfrozen_by,
  unfreezeReason: row.unfreeze_reason
})

/** What a signing or a new request is checked against: its tenant, wallet and (if any) agent. */
export interface FreezeSubject {
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
}

export class SigningFreezes extends Effect.Service<SigningFreezes>()("SigningFreezes", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The active freezes covering any of `subjects` (one statement). */
    const coveringRows = (subjects: ReadonlyArray<FreezeSubject>) =>
      sql`
        SELECT v.ord, f.* FROM jsonb_to_recordset(${JSON.stringify(subjects.map((subject, ord) => ({ ord, ...subject })))}::jsonb)
          AS v(ord int, "tenantId" text, "walletId" text, "agentId" text)
        JOIN signing_freezes f ON f.tenant_id = v."tenantId" AND f.unfrozen_at IS NULL AND (
          f.scope = 'tenant' OR (f.scope = 'wallet' AND f.target_id = v."walletId") OR (f.scope = 'agent' AND f.target_id = v."agentId"))
        ORDER BY v.ord, f.frozen_at
      `.pipe(decodeRows("signing_freezes", FreezeRowOfSubject))

    /** Per subject (by index), the active freeze that covers it, if any. */
    const covering = (subjects: ReadonlyArray<FreezeSubject>) =>
      subjects.length === 0
        ? Effect.succeed(new Map<number, Freeze>())
        : coveringRows(subjects).pipe(
            Effect.map((rows) => {
              const found = new Map<number, Freeze>()
              for (const row of rows) if (!found.has(row.ord)) found.set(row.ord, toFreeze(row))
              return found
            })
          )

    /** The active freeze covering one subject, if any (new requests are refused with it). */
    const activeFor = (subject: FreezeSubject) =>
      covering([subject]).pipe(Effect.map((found) => found.get(0)), Effect.orDie)

    /**
     * Inside the signer's SQL transaction, before any key signs: holds the freeze lock of each subject's
     * tenant (shared, until that transaction ends) and answers, per subject, the freeze that forbids it.
     * Tenants are locked in one order, so two signers never wait for each other.
     */
    const guardSigning = (subjects: ReadonlyArray<FreezeSubject>) =>
      Effect.gen(function* () {
        const tenants = [...new Set(subjects.map((subject) => subject.tenantId))].sort()
        for (const tenant of tenants) yield* sql`SELECT pg_advisory_xact_lock_shared(${FREEZE_LOCK_CLASS}, hashtext(${tenant}))`
        return yield* covering(subjects)
      })

    /**
     * Commits a freeze (in the caller's SQL transaction): waits for every signing of the tenant in
     * progress, then records the freeze stamped with the time it took the lock. Answers the scope's active
     * freeze when there is one already (`created: false`).
     */
    const freeze = (input: { tenantId: string; scope: FreezeScope; targetId: string; reason: string; frozenBy: string }) =>
      Effect.gen(function* () {
        yield* sql`SELECT pg_advisory_xact_lock(${FREEZE_LOCK_CLASS}, hashtext(${input.tenantId}))`
        const inserted = yield* sql`
          INSERT INTO signing_freezes (id, tenant_id, scope, target_id, reason, frozen_by, frozen_at)
          VALUES (${randomUUID()}, ${input.tenantId}, ${input.scope}, ${input.targetId}, ${input.reason}, ${input.frozenBy}, clock_timestamp())
          ON CONFLICT (tenant_id, scope, target_id) WHERE unfrozen_at IS NULL DO NOTHING
          RETURNING *
        `.pipe(decodeRows("signing_freezes", FreezeRow))
        if (inserted.length > 0) return { freeze: toFreeze(inserted[0]), created: true }
        const existing = yield* sql`
          SELECT * FROM signing_freezes
          WHERE tenant_id = ${input.tenantId} AND scope = ${input.scope} AND target_id = ${input.targetId} AND unfrozen_at IS NULL
        `.pipe(decodeRows("signing_freezes", FreezeRow))
        return { freeze: toFreeze(existing[0]), created: false }
      })

    /** Lifts an active freeze (in the caller's SQL transaction); undefined when it is not active or not visible. */
    const lift = (id: string, readTenant: string | null, input: { unfrozenBy: string; reason: string | null }) =>
      sql`
        UPDATE signing_freezes SET unfrozen_at = clock_timestamp(), unfrozen_by = ${input.unfrozenBy}, unfreeze_reason = ${input.reason}
        WHERE id = ${id} AND unfrozen_at IS NULL ${readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`}
        RETURNING *
      `.pipe(decodeRows("signing_freezes", FreezeRow), Effect.map((rows) => (rows.length === 0 ? undefined : toFreeze(rows[0]))))

    const find = (id: string, readTenant: string | null) =>
      sql`
        SELECT * FROM signing_freezes WHERE id = ${id} ${readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`}
      `.pipe(decodeRows("signing_freezes", FreezeRow), Effect.map((rows) => (rows.length === 0 ? undefined : toFreeze(rows[0]))), Effect.orDie)

    const newestFirst = makeKeyset(sql, [
      { column: "frozen_at", descending: true, type: "timestamptz" },
      { column: "id", descending: false, type: "uuid" }
    ])

    /** Newest first; `active`: only freezes in force. */
    const list = (readTenant: string | null, options: PageRequest & { readonly activeOnly: boolean }) =>
      Effect.gen(function* () {
        const conditions = [
          ...(readTenant === null ? [] : [sql`tenant_id = ${readTenant}`]),
          ...(options.activeOnly ? [sql`unfrozen_at IS NULL`] : [])
        ]
        const where = yield* newestFirst.where(conditions, options)
        const rows = yield* sql`
          SELECT *, ${newestFirst.keyColumn} FROM signing_freezes WHERE ${where}
          ORDER BY ${newestFirst.orderBy} LIMIT ${options.limit + 1} OFFSET ${options.offset}
        `.pipe(decodeRows("signing_freezes", FreezePageRow), Effect.orDie)
        const counted = yield* newestFirst.cappedTotal(sql`signing_freezes`, conditions).pipe(Effect.orDie)
        const { items, info } = newestFirst.pageOf(rows, options, counted)
        return { freezes: items.map(toFreeze), ...info }
      })

    /** After the statement that took the subjects' tenants' locks (sharedFreezeLockOf): per subject, the freeze that forbids it. */
    const checkSigning = (subjects: ReadonlyArray<FreezeSubject>) => covering(subjects)

    return {
      activeFor, covering: (subjects: ReadonlyArray<FreezeSubject>) => covering(subjects).pipe(Effect.orDie), guardSigning, checkSigning, freeze, lift, find, list
    }
  })
}) {}
