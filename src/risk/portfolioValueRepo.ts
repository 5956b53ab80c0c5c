/**
 * The wallet's portfolio value history in SQL (`portfolio_values`, migration 0016; docs/decisions/portfolio.md),
 * always filtered by tenant. `observe` records a value just computed and answers the baseline it is judged
 * against, in ONE statement: the peak of every earlier observation and the first value of the UTC day (this
 * one when it is the day's first). `baseline` answers the same without writing (POST /evaluate).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rowDecoding.js"

export interface PortfolioBaseline {
  /** the highest value observed before (undefined: never observed) */
  readonly peakLamports: bigint | undefined
  /** the day's first observed value (undefined: none yet today) */
  readonly dayStartLamports: bigint | undefined
}

const Baseline = Schema.Struct({ peak: Schema.NullOr(Schema.String), day_start: Schema.NullOr(Schema.String) })

const big = (text: string | null | undefined) => (text === null || text === undefined ? undefined : BigInt(text))

export class PortfolioValueRepo extends Effect.Service<PortfolioValueRepo>()("PortfolioValueRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Records `valueLamports` for `utcDay`; the peak answered is the one before this observation. */
    const observe = (tenantId: string, walletId: string, utcDay: string, valueLamports: bigint) =>
      sql`
        WITH prior AS (
          SELECT max(peak_lamports) AS peak FROM portfolio_values WHERE tenant_id = ${tenantId} AND wallet_id = ${walletId}
        ), today AS (
          INSERT INTO portfolio_values (tenant_id, wallet_id, utc_day, first_lamports, peak_lamports, last_lamports)
          VALUES (${tenantId}, ${walletId}, ${utcDay}, ${valueLamports.toString()}, ${valueLamports.toString()}, ${valueLamports.toString()})
          ON CONFLICT (tenant_id, wallet_id, utc_day) DO UPDATE SET
            peak_lamports = greatest(portfolio_values.peak_lamports, EXCLUDED.peak_lamports),
            last_lamports = EXCLUDED.last_lamports, updated_at = now()
          RETURNING first_lamports
        )
        SELECT (SELECT peak::text FROM prior) AS peak, (SELECT first_lamports::text FROM today) AS day_start`.pipe(
        decodeRows("portfolio_values", Baseline),
        Effect.map(([row]): PortfolioBaseline => ({ peakLamports: big(row?.peak), dayStartLamports: big(row?.day_start) })),
        Effect.orDie
      )

    const baseline = (tenantId: string, walletId: string, utcDay: string) =>
      sql`
        SELECT
          (SELECT max(peak_lamports)::text FROM portfolio_values WHERE tenant_id = ${tenantId} AND wallet_id = ${walletId}) AS peak,
          (SELECT first_lamports::text FROM portfolio_values WHERE tenant_id = ${tenantId} AND wallet_id = ${walletId} AND utc_day = ${utcDay}) AS day_start`.pipe(
        decodeRows("portfolio_values", Baseline),
        Effect.map(([row]): PortfolioBaseline => ({ peakLamports: big(row?.peak), dayStartLamports: big(row?.day_start) })),
        Effect.orDie
      )

    return { observe, baseline }
  })
}) {}
