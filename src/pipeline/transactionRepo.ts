/**
 * Transactions in SQL. Every status change goes through `transition` (or `transitionShared`, the
 * pipeline's): one statement that checks the expected current status, writes the new status and
 * fields, appends to `history` and inserts the audit events, so a transition is recorded completely
 * or not at all (and a stale worker cannot move a transaction another worker already moved).
 */
import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"
import { newRowId } from "../db/rowIds.js"
import { makeKeyset, type PageRequest, withPageKey } from "../db/keysetPage.js"
import { makeStatementBatch } from "../db/statementBatch.js"
import { type BuildFactsRow, RECORD_COLUMNS, StageColumnsRow, TransactionRecordRow, TransactionRow } from "./transactionRow.js"
import { decodeRows } from "../db/rowDecoding.js"

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
  /** Clears failedAt, errorCode and error (unless given here): a transaction that left an unresolved or failed state. */
  readonly clearError?: boolean
}

/** A stage the transaction passed through on the way to `to`, recorded in the same statement. */
export interface PassedStage {
  readonly status: TxStatus
  readonly stage: TransactionRow["stage"]
  readonly message?: string
  readonly eventType: string
  readonly eventMetadata?: Record<string, unknown>
  /** When the stage was reached (ISO); its history entry and event carry it. */
  readonly at: string
}

export interface Transition {
  readonly from: ReadonlyArray<TxStatus>
  readonly to: TxStatus
  readonly stage: string
  readonly message?: string
  readonly fields?: TransitionFields
  readonly eventType: string
  readonly eventMetadata?: Record<string, unknown>
  /** Stages passed through before `to`, oldest first (each gets its history entry and audit event). */
  readonly via?: ReadonlyArray<PassedStage>
}

/**
 * Where a run of the pipeline ends (terminal, or waiting for a human at the gate): a transition there
 * also finishes the outbox job that ran it, in the same statement.
 */
export const RUN_ENDS: ReadonlySet<TxStatus> = new Set(["confirmed", "failed", "approval_gate"])

const bigintAsText = (_key: string, v: unknown) => (typeof v === "bigint" ? v.toString() : v)

/** JSON text with bigints as decimal strings. Most inputs hold none: stringified without the replacer, which would be called on every value. */
const json = (value: unknown) => {
  if (value === undefined) return null
  try {
    return JSON.stringify(value)
  } catch {
    return JSON.stringify(value, bigintAsText)
  }
}
const text = (value: bigint | undefined) => (value === undefined ? null : value.toString())

/** A record of a batched read, with the ordinal of the input it answers (see readRecords). */
const RecordRowInBatch = Schema.Struct({ ...TransactionRecordRow.fields, batch_ord: Schema.Number })

/** A transitioned row, with the ordinal of the transition that moved it (see applyTransitions). */
const RowInBatch = Schema.Struct({ ...TransactionRow.fields, batch_ord: Schema.Number })

const RecordPageRow = withPageKey(TransactionRecordRow)

/** One transition as a row of the statement's JSON input (see applyTransitions). */
const transitionInput = (ord: number, txId: string, change: Transition) => {
  const f = change.fields ?? {}
  const now = new Date().toISOString()
  const stages: ReadonlyArray<Omit<PassedStage, "stage"> & { readonly stage: string }> = [
    ...(change.via ?? []),
    { status: change.to, stage: change.stage, message: change.message, eventType: change.eventType, eventMetadata: change.eventMetadata, at: now }
  ]
  return {
    batch_ord: ord,
    id: txId,
    from_statuses: change.from,
    status: change.to,
    stage: change.stage,
    failed_at: f.failedAt ?? null,
    error_code: f.errorCode ?? null,
    error: f.error ?? null,
    signature: f.signature ?? null,
    signed_transaction: f.signedTransaction ?? null,
    message_base64: f.messageBase64 ?? null,
    extra_signatures: f.extraSignatures ?? null,
    build_facts: f.buildFacts ?? null,
    last_valid_block_height: text(f.lastValidBlockHeight),
    policy_decision: f.policyDecision ?? null,
    simulation: f.simulation ?? null,
    execution_proof: f.executionProof ?? null,
    delta_guard: f.deltaGuard ?? null,
    pre_balance_lamports: text(f.preBalanceLamports),
    post_balance_lamports: text(f.postBalanceLamports),
    result: f.result ?? null,
    approval: f.approval ?? null,
    confirmed_at: f.confirmedAt?.toISOString() ?? null,
    clear_error: f.clearError === true,
    // (JSON leaves out an undefined message)
    history: stages.map((s) => ({ status: s.status, stage: s.stage, at: s.at, message: s.message })),
    events: stages.map((s) => ({
      id: newRowId(),
      event_type: s.eventType,
      message: `transaction ${txId} ${s.status}${s.message === undefined ? "" : `: ${s.message}`}`,
      metadata: { status: s.status, stage: s.stage, message: s.message, ...s.eventMetadata }
    })),
    close_job: RUN_ENDS.has(change.to)
  }
}

export class TransactionRepo extends Effect.Service<TransactionRepo>()("TransactionRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const find = (id: string, readTenant: string | null) =>
      sql`
        SELECT * FROM transactions WHERE id = ${id} ${readTenant === null ? sql`` : sql`AND tenant_id = ${readTenant}`}
      `.pipe(decodeRows("transactions", TransactionRow), Effect.map((rows) => rows[0]), Effect.orDie)

    const recordColumns = sql.literal(RECORD_COLUMNS.join(", "))
    const recordColumnsOfT = sql.literal(RECORD_COLUMNS.map((c) => `t.${c}`).join(", "))
    // The row's columns as its schema names them (a transition answers these, not the input it carried along).
    const rowColumns = sql.literal(Object.keys(TransactionRow.fields).join(", "))

    /**
     * Record reads of many callers in one statement (statementBatch.ts): 32 clients polling or waking
     * from a wait make one primary-key read each, and under load those share one statement (one plan,
     * one round trip) instead of N. Each input keeps its own tenant filter in SQL. The lateral subquery
     * with LIMIT 1 keeps it a primary-key lookup per input: as a plain join, the planner hashes the
     * input and scans the whole table.
     */
    const readRecords = (inputs: ReadonlyArray<{ readonly id: string; readonly readTenant: string | null }>) =>
      sql`
        SELECT q.ord AS batch_ord, ${recordColumnsOfT}
        FROM jsonb_to_recordset(${json(inputs.map((input, ord) => ({ ord, id: input.id, tenant: input.readTenant })))}::jsonb) AS q(ord int, id uuid, tenant text)
        CROSS JOIN LATERAL (
          SELECT ${recordColumns} FROM transactions WHERE id = q.id AND (q.tenant IS NULL OR tenant_id = q.tenant) LIMIT 1
        ) t
      `.pipe(
        decodeRows("transactions", RecordRowInBatch),
        Effect.map((rows) => {
          const byOrd = new Map(rows.map(({ batch_ord, ...row }) => [batch_ord, row satisfies TransactionRecordRow]))
          return inputs.map((_input, ord): TransactionRecordRow | undefined => byOrd.get(ord))
        }),
        Effect.orDie
      )
    const recordReads = makeStatementBatch(readRecords, { maxBatch: 64, repeatable: true })

    /** The record's columns only (transactionRow.ts): what a read that answers a client needs. */
    const findRecord = (id: string, readTenant: string | null) => recordReads.submit({ id, readTenant })

    /** The stage columns of those of the transactions named that exist, in one statement (a stream's catch-up after a gap). */
    const stagesOf = (ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed([] as ReadonlyArray<StageColumnsRow>)
        : sql`
            SELECT id, tenant_id, wallet_id, agent_id, status, stage, signature, failed_at, error_code, updated_at FROM transactions
            WHERE id IN (SELECT q.element::uuid FROM jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb) AS q(element))
          `.pipe(decodeRows("transactions", StageColumnsRow), Effect.orDie)

    const findByIdempotencyKey = (tenantId: string, walletId: string, key: string) =>
      sql`
        SELECT * FROM transactions WHERE tenant_id = ${tenantId} AND wallet_id = ${walletId} AND idempotency_key = ${key}
      `.pipe(decodeRows("transactions", TransactionRow), Effect.map((rows) => rows[0]), Effect.orDie)

    /** Applies the transitions in one statement; each answer is the updated row, or undefined when its status was not in `from`. */
    const applyTransitions = (changes: ReadonlyArray<readonly [string, Transition]>) =>
      sql`
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(${json(changes.map(([txId, change], ord) => transitionInput(ord, txId, change)))}::jsonb) AS v(
            batch_ord int, id uuid, from_statuses text[], status text, stage text, failed_at text, error_code text, error text,
            signature text, signed_transaction text, message_base64 text, extra_signatures jsonb, build_facts jsonb,
            last_valid_block_height bigint, policy_decision jsonb, simulation jsonb, execution_proof jsonb, delta_guard jsonb,
            pre_balance_lamports bigint, post_balance_lamports bigint, result jsonb, approval jsonb, confirmed_at timestamptz,
            clear_error boolean, history jsonb, events jsonb, close_job boolean)
        ), moved AS (
          UPDATE transactions t SET
            status = v.status,
            stage = v.stage,
            failed_at = CASE WHEN v.clear_error THEN v.failed_at ELSE COALESCE(v.failed_at, t.failed_at) END,
            error_code = CASE WHEN v.clear_error THEN v.error_code ELSE COALESCE(v.error_code, t.error_code) END,
            error = CASE WHEN v.clear_error THEN v.error ELSE COALESCE(v.error, t.error) END,
            signature = COALESCE(v.signature, t.signature),
            signed_transaction = COALESCE(v.signed_transaction, t.signed_transaction),
            message_base64 = COALESCE(v.message_base64, t.message_base64),
            extra_signatures = COALESCE(v.extra_signatures, t.extra_signatures),
            build_facts = COALESCE(v.build_facts, t.build_facts),
            last_valid_block_height = COALESCE(v.last_valid_block_height, t.last_valid_block_height),
            policy_decision = COALESCE(v.policy_decision, t.policy_decision),
            simulation = COALESCE(v.simulation, t.simulation),
            execution_proof = COALESCE(v.execution_proof, t.execution_proof),
            delta_guard = COALESCE(v.delta_guard, t.delta_guard),
            pre_balance_lamports = COALESCE(v.pre_balance_lamports, t.pre_balance_lamports),
            post_balance_lamports = COALESCE(v.post_balance_lamports, t.post_balance_lamports),
            result = COALESCE(v.result, t.result),
            approval = COALESCE(v.approval, t.approval),
            confirmed_at = COALESCE(v.confirmed_at, t.confirmed_at),
            history = t.history || v.history,
            updated_at = now()
          FROM input v
          -- The id list first (an init plan): joined with the input alone, PostgreSQL may hash the input and scan the table.
          WHERE t.id = ANY (ARRAY(SELECT id FROM input)) AND t.id = v.id AND t.status = ANY (v.from_statuses)
          -- The input's events and close_job ride along, so the statements below need no join back to the input
          -- (PostgreSQL built a hash table for each: 2-11% of the statement's CPU, docs/benchmarks.md).
          RETURNING t.*, v.batch_ord, v.events AS batch_events, v.close_job AS batch_close_job
        ), audited AS (
          INSERT INTO audit_events (id, tenant_id, event_type, message, metadata, tx_id, wallet_id, agent_id, protocol, entity_type, category, trace_id)
          SELECT e.id, m.tenant_id, e.event_type, e.message, e.metadata, m.id, m.wallet_id, m.agent_id, m.protocol, 'transaction', 'pipeline', m.trace_id
          FROM moved m
          CROSS JOIN LATERAL ROWS FROM (jsonb_to_recordset(m.batch_events) AS (id uuid, event_type text, message text, metadata jsonb))
            WITH ORDINALITY AS e(id, event_type, message, metadata, n)
          ORDER BY m.batch_ord, e.n
        ), closed AS (
          -- A transition that ends the run (terminal, or waiting at the gate) also finishes the outbox job that ran it.
          UPDATE outbox_jobs j SET status = 'done', lease_id = NULL, lease_expires_at = NULL, updated_at = now()
          FROM moved m
          WHERE m.batch_close_job AND j.tx_id = m.id AND j.status = 'processing'
        )
        SELECT ${rowColumns}, batch_ord FROM moved
      `.pipe(
        decodeRows("transactions", RowInBatch),
        Effect.map((rows) => {
          const byOrd = new Map(rows.map(({ batch_ord, ...row }) => [batch_ord, row satisfies TransactionRow]))
          return changes.map((_change, ord) => byOrd.get(ord))
        }),
        Effect.orDie
      )

    /** Applies a transition now, in the caller's SQL transaction if any. */
    const transition = (txId: string, change: Transition) =>
      Effect.map(applyTransitions([[txId, change]]), ([row]) => row)

    // The pipeline's transitions share statements (statementBatch.ts): under load, one statement and one
    // commit carry the transitions of many transactions, each still all-or-nothing with its audit events.
    const shared = makeStatementBatch(applyTransitions, { maxBatch: 64, repeatable: false })

    /** Applies a transition in a statement shared with other workers' transitions (never in a caller's SQL transaction). */
    const transitionShared = (txId: string, change: Transition) => shared.submit([txId, change])

    // A wallet's list, newest first, along the index transactions_wallet_created.
    const walletOrder = makeKeyset(sql, [
      { column: "created_at", descending: true, type: "timestamptz" },
      { column: "id", descending: false, type: "uuid" }
    ])

    const listByWallet = (walletId: string, readTenant: string | null, options: PageRequest & { status?: string }) =>
      Effect.gen(function* () {
        const conditions = [
          sql`wallet_id = ${walletId}`,
          ...(readTenant === null ? [] : [sql`tenant_id = ${readTenant}`]),
          ...(options.status === undefined ? [] : [sql`status = ${options.status}`])
        ]
        const where = yield* walletOrder.where(conditions, options)
        const rows = yield* sql`
          SELECT ${recordColumns}, ${walletOrder.keyColumn} FROM transactions WHERE ${where}
          ORDER BY ${walletOrder.orderBy} LIMIT ${options.limit + 1} OFFSET ${options.offset}
        `.pipe(decodeRows("transactions", RecordPageRow), Effect.orDie)
        const counted = yield* walletOrder.cappedTotal(sql`transactions`, conditions).pipe(Effect.orDie)
        return walletOrder.pageOf(rows, options, counted)
      })

    const expiredApprovalsQuery = SqlSchema.findAll({
      Request: Schema.Struct({ now: Schema.String, limit: Schema.Number }),
      Result: Schema.Struct({ id: Schema.String, approval: Schema.Record({ key: Schema.String, value: Schema.Unknown }) }),
      execute: ({ limit, now }) => sql`
        SELECT id, approval FROM transactions
        WHERE approval IS NOT NULL AND approval->>'expiresAt' <= ${now} AND status = 'approval_gate'
        LIMIT ${limit}
      `
    })

    /** Transactions still waiting at the approval gate whose approval expired by `now` (the expirer's sweep). */
    const waitingPastExpiry = (now: Date, limit: number) => expiredApprovalsQuery({ now: now.toISOString(), limit }).pipe(Effect.orDie)

    return { find, findRecord, stagesOf, findByIdempotencyKey, transition, transitionShared, listByWallet, waitingPastExpiry }
  })
}) {}
