/** Auto-funding used per tenant and UTC day, against WALLET_AUTOFUND_DAILY_CAP_LAMPORTS (issue 11 item 5). */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE autofund_daily (
      tenant_id text NOT NULL,
      day date NOT NULL,
      lamports numeric(20, 0) NOT NULL CHECK (lamports >= 0),
      PRIMARY KEY (tenant_id, day)
    )`
})
