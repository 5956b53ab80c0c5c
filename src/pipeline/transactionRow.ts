/**
 * The transactions table's row, decoded by its Schema, and its conversion to the API record (spec:
 * Transaction; [n2]). int8 columns arrive as strings from node-postgres and stay exact.
 */
import { Schema } from "effect"
import { ErrorCodeSchema, FailedAtSchema } from "../../schemas/envelope.js"
import { TransactionStage, TransactionStatus } from "../../schemas/transaction.js"
import { Int8, JsonObject, OneOf, Timestamp } from "../db/rowDecoding.js"
import { EarlierAttempt } from "./earlierAttempt.js"

export const HistoryEntryRow = Schema.Struct({
  status: Schema.String,
  stage: Schema.String,
  at: Schema.String,
  message: Schema.optional(Schema.String),
  /** On a retry's entry: the attempt it replaced ([n7], earlierAttempt.ts). */
  earlierAttempt: Schema.optional(EarlierAttempt)
})
export type HistoryEntryRow = typeof HistoryEntryRow.Type

/** What the build stage learned, kept for the policy stage (it may run in another process after a restart). */
export const BuildFactsRow = Schema.Struct({
  destination: Schema.NullOr(Schema.String),
  tokenMint: Schema.NullOr(Schema.String),
  amountLamports: Schema.NullOr(Schema.String),
  tokenAmount: Schema.NullOr(Schema.String),
  programIds: Schema.Array(Schema.String),
  computeUnitLimit: Schema.Number,
  priorityFeeMicroLamports: Schema.String,
  /** swaps: the route's pools, the output mint, and when the quote the build used was taken */
  pools: Schema.optional(Schema.Array(Schema.String)),
  outputMint: Schema.optional(Schema.String),
  quotedAt: Schema.optional(Schema.String),
  minimumOut: Schema.optional(Schema.String),
  oracleDeviationBps: Schema.optional(Schema.Number),
  oracleUnavailable: Schema.optional(Schema.String),
  /** price accounts the program reads (lend_borrow): aged again before signing */
  oracleAccounts: Schema.optional(Schema.Array(Schema.String)),
  /** unstake: the lamports the build quoted to the wallet */
  expectedInflowLamports: Schema.optional(Schema.String)
})
export type BuildFactsRow = typeof BuildFactsRow.Type

export const TransactionRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  wallet_id: Schema.String,
  agent_id: Schema.NullOr(Schema.String),
  type: Schema.String,
  protocol: Schema.String,
  intent: JsonObject,
  request: JsonObject,
  request_hash: Schema.String,
  gasless: Schema.Boolean,
  require_approval: Schema.Boolean,
  idempotency_key: Schema.NullOr(Schema.String),
  status: OneOf(TransactionStatus),
  stage: OneOf(TransactionStage),
  failed_at: Schema.NullOr(OneOf(FailedAtSchema)),
  error_code: Schema.NullOr(OneOf(ErrorCodeSchema)),
  error: Schema.NullOr(Schema.String),
  signature: Schema.NullOr(Schema.String),
  signed_transaction: Schema.NullOr(Schema.String),
  message_base64: Schema.NullOr(Schema.String),
  extra_signatures: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String })),
  build_facts: Schema.NullOr(BuildFactsRow),
  last_valid_block_height: Schema.NullOr(Int8),
  policy_decision: Schema.NullOr(JsonObject),
  simulation: Schema.NullOr(JsonObject),
  execution_proof: Schema.NullOr(JsonObject),
  delta_guard: Schema.NullOr(JsonObject),
  pre_balance_lamports: Schema.NullOr(Int8),
  post_balance_lamports: Schema.NullOr(Int8),
  result: Schema.NullOr(JsonObject),
  approval: Schema.NullOr(JsonObject),
  history: Schema.Array(HistoryEntryRow),
  attempts: Schema.Number,
  created_at: Timestamp,
  updated_at: Timestamp,
  confirmed_at: Schema.NullOr(Timestamp),
  /** The traceId of the request that created it (internal: correlates logs, audit and traces). */
  trace_id: Schema.optional(Schema.NullOr(Schema.String))
})
export type TransactionRow = typeof TransactionRow.Type

/**
 * The columns the API record is made of: a read that answers a client (GET, the lists, a wait's final
 * read) selects these and not the internal ones (signed bytes, message, request, simulation, build facts),
 * which are the row's largest values and which PostgreSQL would otherwise render and the client parse.
 */
export const RECORD_COLUMNS = [
  "id", "wallet_id", "agent_id", "type", "protocol", "intent", "gasless", "idempotency_key", "status", "stage",
  "failed_at", "error_code", "error", "signature", "policy_decision", "approval", "execution_proof", "delta_guard",
  "pre_balance_lamports", "post_balance_lamports", "result", "attempts", "history", "created_at", "updated_at", "confirmed_at"
] as const satisfies ReadonlyArray<keyof TransactionRow>

/** The columns a stage-stream event carries (stageEvents.ts). */
export const StageColumnsRow = TransactionRow.pick("id", "tenant_id", "wallet_id", "agent_id", "status", "stage", "signature", "failed_at", "error_code", "updated_at")
export type StageColumnsRow = typeof StageColumnsRow.Type

/** A row as a record read selects it. */
export const TransactionRecordRow = TransactionRow.pick(...RECORD_COLUMNS)
export type TransactionRecordRow = typeof TransactionRecordRow.Type
const lamports = (value: string | null) => (value === null ? undefined : BigInt(value))

/** The record clients read. Internal columns (signed bytes, message, request hash) never leave. */
export const toTransactionRecord = (row: TransactionRecordRow) => ({
  id: row.id,
  walletId: row.wallet_id,
  ...(row.agent_id === null ? {} : { agentId: row.agent_id }),
  type: row.type,
  protocol: row.protocol,
  intent: row.intent,
  gasless: row.gasless,
  ...(row.idempotency_key === null ? {} : { idempotencyKey: row.idempotency_key }),
  status: row.status,
  stage: row.stage,
  failedAt: row.failed_at,
  errorCode: row.error_code,
  ...(row.error === null ? {} : { error: row.error }),
  ...(row.signature === null ? {} : { signature: row.signature }),
  ...(row.policy_decision === null ? {} : { policyDecision: row.policy_decision }),
  awaitingApproval: row.status === "approval_gate",
  ...(row.approval === null ? {} : { approval: row.approval }),
  ...(row.execution_proof === null ? {} : { executionProof: row.execution_proof }),
  ...(row.delta_guard === null ? {} : { deltaGuard: row.delta_guard }),
  ...(row.pre_balance_lamports === null ? {} : { preBalanceLamports: lamports(row.pre_balance_lamports) }),
  ...(row.post_balance_lamports === null ? {} : { postBalanceLamports: lamports(row.post_balance_lamports) }),
  ...(row.result === null ? {} : { result: row.result }),
  attempts: row.attempts,
  history: row.history,
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString(),
  ...(row.confirmed_at === null ? {} : { confirmedAt: row.confirmed_at.toISOString() })
})
export type TransactionRecord = ReturnType<typeof toTransactionRecord>
