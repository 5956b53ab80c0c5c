/**
 * The history of a wallet's portfolio value (docs/decisions/portfolio.md): one row per wallet and UTC day,
 * written each time the policy engine values the portfolio for a wallet with a portfolio limit. The day's
 * first value is the daily-loss baseline; the highest value of each day gives the drawdown peak (max over the
 * wallet's days, a handful of rows per wallet, read through the primary key). Values are lamports and may be
 * negative (borrows worth more than everything else).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE portfolio_values (
      tenant_id text NOT NULL,
      wallet_id uuid NOT NULL,
      utc_day text NOT NULL,
      first_lamports numeric(30, 0) NOT NULL,
      peak_lamports numeric(30, 0) NOT NULL,
      last_lamports numeric(30, 0) NOT NULL,
      first_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, wallet_id, utc_day)
    )`
})
