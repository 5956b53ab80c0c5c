/**
 * A policy may require several distinct operator approvals for each transaction of its wallet at the gate
 * (issue 31): `approvals_required` on the policy and on each version it writes (null: one approval).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE policies ADD COLUMN approvals_required integer CHECK (approvals_required BETWEEN 1 AND 10)`
  yield* sql`ALTER TABLE policy_versions ADD COLUMN approvals_required integer`
})
