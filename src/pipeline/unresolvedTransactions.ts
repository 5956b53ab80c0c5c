/**
 * The unresolved_transactions table (its one owner with outbox.ts, which reads it in the resolver's
 * sweep): transactions left at `submitting` for the chain to settle (settlement.ts). Marked when the
 * outbox gives up on one (or a retry finds an earlier signature that may still land), pruned once it
 * settled, so the table holds only the few waiting for the chain.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../db/rowDecoding.js"

const PrunedRow = Schema.Struct({ tx_id: Schema.String })

export class UnresolvedTransactions extends Effect.Service<UnresolvedTransactions>()("UnresolvedTransactions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Adds the transaction to the resolver's work list (again: nothing changes). */
    const mark = (txId: string) =>
      sql`INSERT INTO unresolved_transactions (tx_id) VALUES (${txId}) ON CONFLICT (tx_id) DO NOTHING`.pipe(Effect.asVoid, Effect.orDie)

    /** Drops the entries of transactions that settled (no longer `submitting`); answers how many. */
    const prune = sql`
      DELETE FROM unresolved_transactions u USING transactions t
      WHERE t.id = u.tx_id AND t.status <> 'submitting'
      RETURNING u.tx_id
    `.pipe(decodeRows("unresolved_transactions", PrunedRow), Effect.map((rows) => rows.length), Effect.orDie)

    return { mark, prune }
  })
}) {}
