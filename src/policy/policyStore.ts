/**
 * The state that must be exact under concurrency, in SQL: the decision per transaction, the daily
 * spend (counter per wallet and UTC day, plus one entry per transaction so it can be released), and
 * the rate-limit events. Every function runs inside the caller's SQL transaction after `lockWallet`,
 * which serialises all decisions of one wallet (an upsert takes the row lock until commit), so two
 * evaluations racing for the last lamports of a daily limit never both pass.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { PolicyDecision } from "../../schemas/policy.js"
import type { PolicyEffects } from "./evaluationState.js"
import { utcDayKey } from "./utcTime.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

export interface StoredDecision {
  readonly decision: PolicyDecision
  readonly walletId: string
  readonly tenantId: string
  /** For require_approval: the spend to count when a human approves. */
  readonly approvalSpendLamports: bigint | null
  readonly approvedAt: Date | null
}

const decodeDecision = Schema.decodeUnknownSync(Schema.parseJson(PolicyDecision))

/** A recorded decision, its JSON as text. */
const DecisionRow = Schema.Struct({
  decision: Schema.String,
  wallet_id: Schema.String,
  tenant_id: Schema.String,
  approval_spend_lamports: Schema.NullOr(Schema.String),
  approved_at: Schema.NullOr(Timestamp)
})

const DailySpentRow = Schema.Struct({ spent: Schema.String })

const CountRow = Schema.Struct({ n: Schema.String })

const WalletIdRow = Schema.Struct({ wallet_id: Schema.String })

/** A spend entry: the lamports it counted on its wallet's UTC day. */
const SpendEntryRow = Schema.Struct({ wallet_id: Schema.String, utc_day: Schema.String, lamports: Schema.String })

const SpendEntryWithReleasedRow = Schema.Struct({ ...SpendEntryRow.fields, released: Schema.Boolean })

const SpentLamportsRow = Schema.Struct({ lamports: Schema.String })

export class PolicyStore extends Effect.Service<PolicyStore>()("PolicyStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Takes the wallet's decision lock until the surrounding transaction ends. */
    const lockWallet = (walletId: string) =>
      sql`
        INSERT INTO policy_wallet_locks (wallet_id) VALUES (${walletId})
        ON CONFLICT (wallet_id) DO UPDATE SET last_decision_at = now()
      `.pipe(Effect.asVoid)

    const findDecision = (txId: string) =>
      sql`
        SELECT decision::text AS decision, wallet_id::text AS wallet_id, tenant_id, approval_spend_lamports::text AS approval_spend_lamports, approved_at
        FROM policy_decisions WHERE tx_id = ${txId}
      `.pipe(
        decodeRows("policy_decisions", DecisionRow),
        Effect.map((rows): StoredDecision | undefined => {
          if (rows.length === 0) return undefined
          const row = rows[0]
          return {
            decision: decodeDecision(row.decision),
            walletId: row.wallet_id,
            tenantId: row.tenant_id,
            approvalSpendLamports: row.approval_spend_lamports === null ? null : BigInt(row.approval_spend_lamports),
            approvedAt: row.approved_at
          }
        })
      )

    const recordDecision = (
      txId: string,
      tenantId: string,
      walletId: string,
      decision: PolicyDecision,
      approvalSpendLamports: bigint | null
    ) =>
      sql`
        INSERT INTO policy_decisions (tx_id, tenant_id, wallet_id, decision, approval_spend_lamports)
        VALUES (${txId}, ${tenantId}, ${walletId}, ${JSON.stringify(decision)}::jsonb,
          ${approvalSpendLamports === null ? null : approvalSpendLamports.toString()}::numeric)
      `.pipe(Effect.asVoid)

    const dailySpent = (walletId: string, utcDay: string) =>
      sql`
        SELECT spent_lamports::text AS spent FROM policy_daily_spend WHERE wallet_id = ${walletId} AND utc_day = ${utcDay}
      `.pipe(decodeRows("policy_daily_spend", DailySpentRow), Effect.map((rows) => (rows.length === 0 ? 0n : BigInt(rows[0].spent))))

    /** Events per window length for `key` with at > instant - window (sliding). */
    const rateCounts = (key: string, windowsSeconds: ReadonlyArray<number>, instant: Date) =>
      Effect.forEach(windowsSeconds, (windowSeconds) =>
        sql`
          SELECT count(*)::text AS n FROM policy_rate_events
          WHERE key = ${key} AND window_seconds = ${windowSeconds} AND at > ${new Date(instant.getTime() - windowSeconds * 1000)}
        `.pipe(decodeRows("policy_rate_events", CountRow), Effect.map((rows) => [windowSeconds, Number(rows[0].n)] as const))
      ).pipe(Effect.map((entries) => new Map(entries)))

    /** Counts `lamports` for the wallet on `utcDay`, keyed by txId (a second call for the same tx adds nothing). */
    const addSpend = (txId: string, walletId: string, utcDay: string, lamports: bigint) =>
      Effect.gen(function* () {
        if (lamports <= 0n) return
        const inserted = yield* sql`
          INSERT INTO policy_spend_entries (tx_id, wallet_id, utc_day, lamports)
          VALUES (${txId}, ${walletId}, ${utcDay}, ${lamports.toString()}::numeric)
          ON CONFLICT (tx_id) DO NOTHING RETURNING tx_id
        `.pipe(Effect.map((rows) => rows.length > 0))
        if (!inserted) return
        yield* sql`
          INSERT INTO policy_daily_spend (wallet_id, utc_day, spent_lamports)
          VALUES (${walletId}, ${utcDay}, ${lamports.toString()}::numeric)
          ON CONFLICT (wallet_id, utc_day) DO UPDATE SET spent_lamports = policy_daily_spend.spent_lamports + EXCLUDED.spent_lamports
        `
      })

    /** Applies the evaluator's effects: the spend, and the rate events (pruning expired ones of the same key). */
    const applyEffects = (txId: string, walletId: string, effects: PolicyEffects) =>
      Effect.gen(function* () {
        yield* addSpend(txId, walletId, effects.utcDay, effects.addDailySpendLamports)
        const pruneBefore = Math.min(effects.at.getTime(), Date.now())
        for (const event of effects.rateEvents) {
          yield* sql`
            DELETE FROM policy_rate_events WHERE key = ${event.key} AND window_seconds = ${event.windowSeconds}
              AND at <= ${new Date(pruneBefore - event.windowSeconds * 1000)}
          `
          yield* sql`
            INSERT INTO policy_rate_events (key, window_seconds, at, tx_id)
            VALUES (${event.key}, ${event.windowSeconds}, ${effects.at}, ${txId})
          `
        }
      })

    /**
     * Marks a require_approval decision approved, once per tx. Its spend was reserved when it reached
     * the gate; a decision recorded before gates reserved (no entry yet) counts it now, on the approval's day.
     */
    const approve = (txId: string, approvedAt: Date) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const stored = yield* findDecision(txId)
          if (stored === undefined || stored.approvedAt !== null) return
          yield* lockWallet(stored.walletId)
          const marked = yield* sql`
            UPDATE policy_decisions SET approved_at = ${approvedAt} WHERE tx_id = ${txId} AND approved_at IS NULL RETURNING tx_id
          `.pipe(Effect.map((rows) => rows.length > 0))
          if (!marked) return
          yield* addSpend(txId, stored.walletId, utcDayKey(approvedAt), stored.approvalSpendLamports ?? 0n)
        })
      )

    /** Gives a transaction's counted spend back (it failed before submission); once per tx. */
    const release = (txId: string) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const entries = yield* sql`
            SELECT wallet_id::text AS wallet_id FROM policy_spend_entries WHERE tx_id = ${txId} AND NOT released
          `.pipe(decodeRows("policy_spend_entries", WalletIdRow))
          if (entries.length === 0) return
          yield* lockWallet(entries[0].wallet_id)
          const released = yield* sql`
            UPDATE policy_spend_entries SET released = true, released_at = now()
            WHERE tx_id = ${txId} AND NOT released
            RETURNING wallet_id::text AS wallet_id, utc_day, lamports::text AS lamports
          `.pipe(decodeRows("policy_spend_entries", SpendEntryRow))
          for (const row of released) {
            yield* sql`
              UPDATE policy_daily_spend SET spent_lamports = greatest(spent_lamports - ${row.lamports}::numeric, 0)
              WHERE wallet_id = ${row.wallet_id} AND utc_day = ${row.utc_day}
            `
          }
        })
      )

    /**
     * A retry starts the transaction over ([n7]): the earlier attempt's spend is given back if it still
     * counts, and its decision and spend entry are removed, so the next attempt decides afresh and
     * counts its own spend. Runs in the caller's SQL transaction (the retry's); the earlier decision
     * stays in the transaction's history and in its `policy.evaluated` audit event.
     */
    const startOver = (txId: string) =>
      Effect.gen(function* () {
        const owners = yield* sql`
          SELECT wallet_id::text AS wallet_id FROM policy_decisions WHERE tx_id = ${txId}
          UNION SELECT wallet_id::text FROM policy_spend_entries WHERE tx_id = ${txId}
        `.pipe(decodeRows("policy_decisions", WalletIdRow))
        if (owners.length === 0) return
        yield* lockWallet(owners[0].wallet_id)
        const entries = yield* sql`
          DELETE FROM policy_spend_entries WHERE tx_id = ${txId}
          RETURNING wallet_id::text AS wallet_id, utc_day, lamports::text AS lamports, released
        `.pipe(decodeRows("policy_spend_entries", SpendEntryWithReleasedRow))
        for (const row of entries.filter((entry) => !entry.released)) {
          yield* sql`
            UPDATE policy_daily_spend SET spent_lamports = greatest(spent_lamports - ${row.lamports}::numeric, 0)
            WHERE wallet_id = ${row.wallet_id} AND utc_day = ${row.utc_day}
          `
        }
        yield* sql`DELETE FROM policy_decisions WHERE tx_id = ${txId}`
      })

    /**
     * What a transaction itself counts: its unreleased spend on `utcDay` and its rate events per window (at >
     * instant - window), so a second look at it (approved, before signing) can leave them out.
     */
    const ownUsage = (txId: string, utcDay: string, windowsSeconds: ReadonlyArray<number>, instant: Date) =>
      Effect.gen(function* () {
        const [spent] = yield* sql`
          SELECT COALESCE(sum(lamports), 0)::text AS lamports FROM policy_spend_entries WHERE tx_id = ${txId} AND utc_day = ${utcDay} AND NOT released
        `.pipe(decodeRows("policy_spend_entries", SpentLamportsRow))
        const rate = yield* Effect.forEach(windowsSeconds, (windowSeconds) =>
          sql`
            SELECT count(*)::text AS n FROM policy_rate_events
            WHERE tx_id = ${txId} AND window_seconds = ${windowSeconds} AND at > ${new Date(instant.getTime() - windowSeconds * 1000)}
          `.pipe(decodeRows("policy_rate_events", CountRow), Effect.map((rows) => [windowSeconds, Number(rows[0]?.n ?? "0")] as const))
        )
        return { spentLamports: BigInt(spent?.lamports ?? "0"), rateCounts: new Map(rate) }
      })

    return { lockWallet, startOver, findDecision, recordDecision, dailySpent, rateCounts, ownUsage, applyEffects, approve, release }
  })
}) {}
