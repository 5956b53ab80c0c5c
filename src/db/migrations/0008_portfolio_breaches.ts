/**
 * A third kind of agent breach: a spend denied by the wallet's portfolio risk controls (drawdown or
 * daily loss over its limit), which pauses the agent like the other two when autoPauseOnBreach holds.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE agent_breaches DROP CONSTRAINT agent_breaches_kind_check`
  yield* sql`ALTER TABLE agent_breaches ADD CONSTRAINT agent_breaches_kind_check CHECK (kind IN ('budget', 'delta_guard', 'portfolio'))`
})
