/**
 * Each tenant's daily quota of relayed fees (issue 31): the fee a gasless transaction's relay will pay is
 * reserved before anything is signed, under a per-tenant lock, against GASLESS_TENANT_DAILY_FEE_QUOTA_LAMPORTS
 * (or the tenant's own figure in GASLESS_TENANT_FEE_QUOTAS) for the UTC day. A transaction that failed before
 * it was sent (validation, policy, build, sign) stops counting by itself; one that was sent counts, whether or
 * not it landed (the relay may have paid). A resumed or retried run replaces its own reservation.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { AppConfig } from "../config.js"
import { decodeRows } from "../db/rowDecoding.js"

export type QuotaOutcome =
  | { readonly ok: true }
  | { readonly ok: false; readonly usedLamports: bigint; readonly quotaLamports: bigint; readonly utcDay: string }

const utcDayOf = (instant: Date) => instant.toISOString().slice(0, 10)

/** The fee lamports a tenant's day has reserved. */
const UsedRow = Schema.Struct({ used: Schema.String })

export class GaslessQuota extends Effect.Service<GaslessQuota>()("GaslessQuota", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = (yield* AppConfig).gasless

    const quotaOf = (tenantId: string) => config.tenantFeeQuotas.get(tenantId) ?? BigInt(config.tenantDailyFeeQuotaLamports)

    /** Reserves `feeLamports` of the tenant's day for `txId`, or answers how much is used and the quota. */
    const reserve = (txId: string, tenantId: string, feeLamports: bigint, now = new Date()): Effect.Effect<QuotaOutcome> =>
      sql.withTransaction(
        Effect.gen(function* () {
          const utcDay = utcDayOf(now)
          const quotaLamports = quotaOf(tenantId)
          yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`gasless_fee_quota:${tenantId}`}))`
          const [{ used }] = yield* sql`
            SELECT COALESCE(sum(r.fee_lamports), 0)::text AS used
            FROM gasless_fee_reservations r JOIN transactions t ON t.id = r.tx_id
            WHERE r.tenant_id = ${tenantId} AND r.utc_day = ${utcDay} AND r.tx_id <> ${txId}
              AND NOT (t.status = 'failed' AND t.failed_at IN ('validation', 'policy', 'build', 'sign'))
          `.pipe(decodeRows("gasless_fee_reservations", UsedRow))
          const usedLamports = BigInt(used)
          if (usedLamports + feeLamports > quotaLamports) return { ok: false, usedLamports, quotaLamports, utcDay } as const
          yield* sql`
            INSERT INTO gasless_fee_reservations (tx_id, tenant_id, utc_day, fee_lamports)
            VALUES (${txId}, ${tenantId}, ${utcDay}, ${feeLamports.toString()}::numeric)
            ON CONFLICT (tx_id) DO UPDATE SET utc_day = EXCLUDED.utc_day, fee_lamports = EXCLUDED.fee_lamports, reserved_at = now()
          `
          return { ok: true } as const
        })
      ).pipe(Effect.orDie)

    return { reserve }
  })
}) {}
