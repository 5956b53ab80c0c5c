/**
 * Transactions as other components read them (the pipeline owns the table): short summaries of a
 * wallet's activity for an agent's tick context, which of some transactions failed before they could
 * reach the chain (the budget reconciler), and the agent transactions whose delta guard failed (the
 * breach sweep). Rows are decoded by a Schema; infrastructure errors are defects here.
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { Timestamp } from "../db/rowDecoding.js"

/** A transaction of a wallet as an agent's tick context lists it. */
export const WalletTransactionSummary = Schema.Struct({ id: Schema.String, type: Schema.String, status: Schema.String, createdAt: Timestamp })
export type WalletTransactionSummary = typeof WalletTransactionSummary.Type

/** A confirmed transaction of an agent whose delta guard failed, with the reason it recorded. */
export const DeltaGuardFailure = Schema.Struct({
  txId: Schema.String,
  tenantId: Schema.String,
  agentId: Schema.String,
  reason: Schema.NullOr(Schema.String)
})
export type DeltaGuardFailure = typeof DeltaGuardFailure.Type

export class TransactionSummaries extends Effect.Service<TransactionSummaries>()("TransactionSummaries", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const recentOfWalletQuery = SqlSchema.findAll({
      Request: Schema.Struct({ walletId: Schema.String, limit: Schema.Number }),
      Result: WalletTransactionSummary,
      execute: ({ limit, walletId }) => sql`
        SELECT id, type, status, created_at AS "createdAt" FROM transactions WHERE wallet_id = ${walletId}
        ORDER BY created_at DESC, id LIMIT ${limit}
      `
    })

    const awaitingApprovalQuery = SqlSchema.findAll({
      Request: Schema.String,
      Result: WalletTransactionSummary,
      execute: (walletId) => sql`
        SELECT id, type, status, created_at AS "createdAt" FROM transactions WHERE wallet_id = ${walletId} AND status = 'approval_gate'
        ORDER BY created_at, id
      `
    })

    const failedAtQuery = SqlSchema.findAll({
      Request: Schema.Struct({ txIds: Schema.Array(Schema.String), failedAt: Schema.Array(Schema.String) }),
      Result: Schema.Struct({ id: Schema.String }),
      execute: ({ failedAt, txIds }) => sql`
        SELECT id FROM transactions
        WHERE id IN (SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(txIds)}::jsonb))
          AND status = 'failed' AND failed_at IN ${sql.in(failedAt)}
      `
    })

    const deltaGuardFailuresQuery = SqlSchema.findAll({
      Request: Schema.Void,
      Result: DeltaGuardFailure,
      execute: () => sql`
        SELECT id AS "txId", tenant_id AS "tenantId", agent_id AS "agentId", delta_guard->>'reason' AS reason
        FROM transactions
        WHERE agent_id IS NOT NULL AND (delta_guard->>'ok') = 'false' AND status = 'confirmed'
        ORDER BY created_at, id
      `
    })

    /** The wallet's latest transactions, newest first. */
    const recentOfWallet = (walletId: string, limit: number) => recentOfWalletQuery({ walletId, limit }).pipe(Effect.orDie)

    /** The wallet's transactions waiting for an approval, oldest first. */
    const awaitingApprovalOfWallet = (walletId: string) => awaitingApprovalQuery(walletId).pipe(Effect.orDie)

    /** Which of `txIds` failed at one of `failedAt` (so never reached the chain). */
    const failedAtAnyOf = (txIds: ReadonlyArray<string>, failedAt: ReadonlyArray<string>) =>
      txIds.length === 0 || failedAt.length === 0
        ? Effect.succeed([] as ReadonlyArray<string>)
        : failedAtQuery({ txIds, failedAt }).pipe(Effect.map((rows) => rows.map((row) => row.id)), Effect.orDie)

    /** Every confirmed agent transaction whose delta guard failed, oldest first. */
    const agentDeltaGuardFailures = deltaGuardFailuresQuery(undefined).pipe(Effect.orDie)

    return { recentOfWallet, awaitingApprovalOfWallet, failedAtAnyOf, agentDeltaGuardFailures }
  })
}) {}
