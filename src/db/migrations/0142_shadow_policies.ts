/**
 * Shadow policies (issue 34 item 2, docs/decisions/shadow-policies.md): a policy created in shadow is never
 * enforced (it is stored inactive) but evaluated on every real decision of its wallet, its verdict recorded
 * beside the enforced one. Activating it promotes it (the flag is cleared).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE policies ADD COLUMN shadow boolean NOT NULL DEFAULT false`
  yield* sql`CREATE INDEX policies_shadow ON policies (wallet_id) WHERE shadow`
})
