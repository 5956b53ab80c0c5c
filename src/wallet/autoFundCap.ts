/**
 * The daily cap of auto-funding per tenant (WALLET_AUTOFUND_DAILY_CAP_LAMPORTS, UTC days): a wallet
 * create with autoFund reserves its amount first, in one SQL statement that never lets the day's total
 * pass the cap (so concurrent creates and several processes cannot either), and is refused when it
 * would. A funding that then fails gives its reservation back.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { PolicyViolation } from "../../schemas/errors.js"
import { decodeRows } from "../db/rowDecoding.js"

export interface AutoFundReservation {
  readonly tenantId: string
  readonly day: string
  readonly lamports: bigint
}

/** The UTC day a reservation counted on. */
const ReservedDayRow = Schema.Struct({ day: Schema.String })

/** The lamports the tenant's day has reserved. */
const UsedLamportsRow = Schema.Struct({ lamports: Schema.String })

export const makeAutoFundCap = (sql: SqlClient.SqlClient, capLamports: bigint) => {
  const refused = (tenantId: string, used: bigint, lamports: bigint) =>
    new PolicyViolation({
      message:
        `autoFund: the daily auto-funding cap of tenant ${tenantId} is ${capLamports} lamports; ` +
        `${used} used today (UTC), ${lamports} asked. Fund the wallet another way or try after midnight UTC.`
    })

  const reserve = (tenantId: string, lamports: bigint): Effect.Effect<AutoFundReservation, PolicyViolation> =>
    Effect.gen(function* () {
      const [row] = yield* sql`
        INSERT INTO autofund_daily (tenant_id, day, lamports)
        SELECT ${tenantId}, (now() AT TIME ZONE 'utc')::date, ${lamports.toString()}::numeric
        WHERE ${lamports.toString()}::numeric <= ${capLamports.toString()}::numeric
        ON CONFLICT (tenant_id, day) DO UPDATE SET lamports = autofund_daily.lamports + EXCLUDED.lamports
          WHERE autofund_daily.lamports + EXCLUDED.lamports <= ${capLamports.toString()}::numeric
        RETURNING day::text AS day
      `.pipe(decodeRows("autofund_daily", ReservedDayRow), Effect.orDie)
      if (row !== undefined) return { tenantId, day: row.day, lamports }
      const [used] = yield* sql`
        SELECT lamports::text AS lamports FROM autofund_daily
        WHERE tenant_id = ${tenantId} AND day = (now() AT TIME ZONE 'utc')::date
      `.pipe(decodeRows("autofund_daily", UsedLamportsRow), Effect.orDie)
      return yield* refused(tenantId, BigInt(used?.lamports ?? "0"), lamports)
    }).pipe(Effect.withSpan("AutoFundCap.reserve"))

  const release = (reservation: AutoFundReservation) =>
    sql`
      UPDATE autofund_daily SET lamports = greatest(lamports - ${reservation.lamports.toString()}::numeric, 0)
      WHERE tenant_id = ${reservation.tenantId} AND day = ${reservation.day}::date
    `.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("AutoFundCap.release"))

  return { reserve, release }
}
