/**
 * A wallet's approval quorum (issue 31): how many distinct operators must approve each of its transactions
 * at the approval gate (1 when it has no row). The approvals themselves, who and when, are kept on the
 * transaction's `approval` (its history and audit events record each one).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE wallet_approval_quorums (
      wallet_id uuid PRIMARY KEY,
      tenant_id text NOT NULL,
      approvals_required integer NOT NULL CHECK (approvals_required BETWEEN 1 AND 10),
      updated_at timestamptz NOT NULL DEFAULT now(),
      updated_by text NOT NULL
    )`
})
