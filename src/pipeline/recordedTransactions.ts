/**
 * A wallet's recorded transactions as a policy backtest reads them (issue 34 item 2): what each asked for and
 * what its build found (destination, mint, amount, programs), and the decision it had, oldest first, over a
 * window of days. Nothing is run again.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { typesWhere } from "../protocols/registry.js"
import { TransactionRow } from "./transactionRow.js"
import { decodeRows } from "../db/rowDecoding.js"

export const RecordedTransaction = TransactionRow.pick("id", "agent_id", "type", "protocol", "intent", "status", "build_facts", "policy_decision", "created_at")
export type RecordedTransaction = typeof RecordedTransaction.Type

/** Read-only intents have no decision to replay. */
const READ_ONLY = typesWhere((facts) => facts.performedBy === "balanceRead" || facts.performedBy === "positionsRead")

export class RecordedTransactions extends Effect.Service<RecordedTransactions>()("RecordedTransactions", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** At most `limit` spend-capable transactions of the wallet created since `since`, oldest first. */
    const ofWalletSince = (walletId: string, tenantId: string, since: Date, limit: number) =>
      sql`
        SELECT id, agent_id, type, protocol, intent, status, build_facts, policy_decision, created_at FROM transactions
        WHERE wallet_id = ${walletId} AND tenant_id = ${tenantId} AND created_at >= ${since} AND type NOT IN ${sql.in(READ_ONLY)}
        ORDER BY created_at, id LIMIT ${limit}
      `.pipe(decodeRows("transactions", RecordedTransaction), Effect.orDie)

    return { ofWalletSince }
  })
}) {}
