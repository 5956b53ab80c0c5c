/**
 * Transactions in SQL. Every status change goes through `transition`: one statement that checks the
 * expected current status, writes the new status and fields, appends to `history` and inserts the
 * audit event, so a transition is recorded completely or not at all (and a stale worker cannot move
 * a transaction another worker already moved).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { BuildFactsRow, TransactionRow } from "./transactionRow.js"

export type TxStatus = TransactionRow["status"]

/** Fields a transition may set; undefined leaves a column as it is. */
export interface TransitionFields {
  readonly failedAt?: string
  readonly errorCode?: string
  readonly error?: string
  readonly signature?: string
  readonly signedTransaction?: string
  readonly messageBase64?: string
  readonly extraSignatures?: Record<string, string>
  readonly buildFacts?: BuildFactsRow
  readonly lastValidBlockHeight?: bigint
  readonly policyDecision?: unknown
  readonly simulation?: unknown
  readonly executionProof?: unknown
  readonly deltaGuard?: unknown
  readonly preBalanceLamports?: bigint
  readonly postBalanceLamports?: bigint
  readonly result?: unknown
  readonly approval?: unknown
  readonly confirmedAt?: Date
}

export interface Transition {
  readonly from: ReadonlyArray<TxStatus>
  readonly to: TxStatus
  readonly stage: string
  readonly message?: string
  readonly fields?: TransitionFields
  readonly eventType: string
  readonly eventMetadata?: Record<string, unknown>
}

const json = (value: unknown) =>
  value === undefined ? null : JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))
const text = (value: bigint | undefined) => (value === undefined ? null : value.toString())

export class TransactionRepo extends Effect.Service<TransactionRepo>()("TransactionRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const find = (id: string, readTenant: string | null) =>
      sql<TransactionRow>`
        SELECT * FROM transactions WHERE id = ${id} ${readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`}
      `.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    /** The row and its wallet's public key in one round trip (a worker's first read of a job). */
    const findWithWalletKey = (id: string) =>
      sql<TransactionRow & { readonly wallet_public_key: string }>`
        SELECT t.*, w.public_key AS wallet_public_key FROM transactions t JOIN wallets w ON w.id = t.wallet_id WHERE t.id = ${id}
      `.pipe(
        Effect.map(([found]) => {
          if (found === undefined) return undefined
          const { wallet_public_key: publicKey, ...row } = found
          return { row: row satisfies TransactionRow, publicKey }
        }),
        Effect.orDie
      )

    const findByIdempotencyKey = (tenantId: string, walletId: string, key: string) =>
      sql<TransactionRow>`
        SELECT * FROM transactions WHERE tenant_id = ${tenantId} AND wallet_id = ${walletId} AND idempotency_key = ${key}
      `.pipe(Effect.map((rows) => rows[0]), Effect.orDie)

    /** Applies a transition; returns the updated row, or undefined when the status was not in `from`. */
    const transition = (txId: string, change: Transition) => {
      const f = change.fields ?? {}
      const at = new Date().toISOString()
      const entry = JSON.stringify([{ status: change.to, stage: change.stage, at, ...(change.message === undefined ? {} : { message: change.message }) }])
      const metadata = json({ status: change.to, stage: change.stage, ...(change.message === undefined ? {} : { message: change.message }), ...change.eventMetadata })
      return sql<TransactionRow>`
        WITH moved AS (
          UPDATE transactions SET
            status = ${change.to},
            stage = ${change.stage},
            failed_at = COALESCE(${f.failedAt ?? null}, failed_at),
            error_code = COALESCE(${f.errorCode ?? null}, error_code),
            error = COALESCE(${f.error ?? null}, error),
            signature = COALESCE(${f.signature ?? null}, signature),
            signed_transaction = COALESCE(${f.signedTransaction ?? null}, signed_transaction),
            message_base64 = COALESCE(${f.messageBase64 ?? null}, message_base64),
            extra_signatures = COALESCE(${json(f.extraSignatures)}::jsonb, extra_signatures),
            build_facts = COALESCE(${json(f.buildFacts)}::jsonb, build_facts),
            last_valid_block_height = COALESCE(${text(f.lastValidBlockHeight)}::bigint, last_valid_block_height),
            policy_decision = COALESCE(${json(f.policyDecision)}::jsonb, policy_decision),
            simulation = COALESCE(${json(f.simulation)}::jsonb, simulation),
            execution_proof = COALESCE(${json(f.executionProof)}::jsonb, execution_proof),
            delta_guard = COALESCE(${json(f.deltaGuard)}::jsonb, delta_guard),
            pre_balance_lamports = COALESCE(${text(f.preBalanceLamports)}::bigint, pre_balance_lamports),
            post_balance_lamports = COALESCE(${text(f.postBalanceLamports)}::bigint, post_balance_lamports),
            result = COALESCE(${json(f.result)}::jsonb, result),
            approval = COALESCE(${json(f.approval)}::jsonb, approval),
            confirmed_at = COALESCE(${f.confirmedAt?.toISOString() ?? null}::timestamptz, confirmed_at),
            history = history || ${entry}::jsonb,
            updated_at = now()
          WHERE id = ${txId} AND status IN ${sql.in(change.from as Array<string>)}
          RETURNING *
        ), audited AS (
          INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id, protocol, entity_type, category)
          SELECT ${randomUUID()}, tenant_id, ${change.eventType}, ${`transaction ${txId} ${change.to}${change.message === undefined ? "" : `: ${change.message}`}`},
            ${metadata}::jsonb, id, wallet_id, agent_id, protocol, 'transaction', 'pipeline'
          FROM moved
        )
        SELECT * FROM moved
      `.pipe(Effect.map((rows) => rows[0]), Effect.orDie)
    }

    const listByWallet = (walletId: string, readTenant: string | null, options: { limit: number; offset: number; status?: string }) =>
      Effect.gen(function* () {
        const where = sql.and([
          sql`wallet_id = ${walletId}`,
          ...(readTenant === null ? [] : [sql`tenant_id = ${readTenant}`]),
          ...(options.status === undefined ? [] : [sql`status = ${options.status}`])
        ])
        const rows = yield* sql<TransactionRow>`
          SELECT * FROM transactions WHERE ${where} ORDER BY created_at DESC, id LIMIT ${options.limit} OFFSET ${options.offset}
        `
        const [{ total }] = yield* sql<{ total: string }>`SELECT count(*)::text AS total FROM transactions WHERE ${where}`
        return { rows, total: Number(total) }
      }).pipe(Effect.orDie)

    const walletKey = (walletId: string) =>
      sql<{ public_key: string }>`SELECT public_key FROM wallets WHERE id = ${walletId}`.pipe(
        Effect.map((rows) => ({ publicKey: rows[0].public_key })),
        Effect.orDie
      )

    return { find, findWithWalletKey, findByIdempotencyKey, transition, listByWallet, walletKey }
  })
}) {}
