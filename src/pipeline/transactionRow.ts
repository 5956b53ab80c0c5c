/**
 * The transactions table's row and its conversion to the API record (spec: Transaction; [n2]).
 * int8 columns arrive as strings from node-postgres and stay exact.
 */
import type { Transaction } from "../../schemas/transaction.js"
import type { EarlierAttempt } from "./earlierAttempt.js"

export interface HistoryEntryRow {
  readonly status: string
  readonly stage: string
  readonly at: string
  readonly message?: string
  /** On a retry's entry: the attempt it replaced ([n7], earlierAttempt.ts). */
  readonly earlierAttempt?: EarlierAttempt
}

/** What the build stage learned, kept for the policy stage (it may run in another process after a restart). */
export interface BuildFactsRow {
  readonly destination: string | null
  readonly tokenMint: string | null
  readonly amountLamports: string | null
  readonly tokenAmount: string | null
  readonly programIds: ReadonlyArray<string>
  readonly computeUnitLimit: number
  readonly priorityFeeMicroLamports: string
  /** swaps: the route's pools, the output mint, and when the quote the build used was taken */
  readonly pools?: ReadonlyArray<string>
  readonly outputMint?: string
  readonly quotedAt?: string
  readonly minimumOut?: string
  readonly oracleDeviationBps?: number
  readonly oracleUnavailable?: string
  /** price accounts the program reads (lend_borrow): aged again before signing */
  readonly oracleAccounts?: ReadonlyArray<string>
  /** unstake: the lamports the build quoted to the wallet */
  readonly expectedInflowLamports?: string
}

export interface TransactionRow {
  readonly id: string
  readonly tenant_id: string
  readonly wallet_id: string
  readonly agent_id: string | null
  readonly type: string
  readonly protocol: string
  readonly intent: Record<string, unknown>
  readonly request: Record<string, unknown>
  readonly request_hash: string
  readonly gasless: boolean
  readonly require_approval: boolean
  readonly idempotency_key: string | null
  readonly status: Transaction["status"]
  readonly stage: Transaction["stage"]
  readonly failed_at: Transaction["failedAt"]
  readonly error_code: Transaction["errorCode"]
  readonly error: string | null
  readonly signature: string | null
  readonly signed_transaction: string | null
  readonly message_base64: string | null
  readonly extra_signatures: Record<string, string> | null
  readonly build_facts: BuildFactsRow | null
  readonly last_valid_block_height: string | null
  readonly policy_decision: Record<string, unknown> | null
  readonly simulation: Record<string, unknown> | null
  readonly execution_proof: Record<string, unknown> | null
  readonly delta_guard: Record<string, unknown> | null
  readonly pre_balance_lamports: string | null
  readonly post_balance_lamports: string | null
  readonly result: Record<string, unknown> | null
  readonly approval: Record<string, unknown> | null
  readonly history: ReadonlyArray<HistoryEntryRow>
  readonly attempts: number
  readonly created_at: Date | string
  readonly updated_at: Date | string
  readonly confirmed_at: Date | string | null
  /** The traceId of the request that created it (internal: correlates logs, audit and traces). */
  readonly trace_id?: string | null
}

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

/** A row as a record read selects it. */
export type TransactionRecordRow = Pick<TransactionRow, (typeof RECORD_COLUMNS)[number]>

const iso = (value: Date | string) => new Date(value).toISOString()
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
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at),
  ...(row.confirmed_at === null ? {} : { confirmedAt: iso(row.confirmed_at) })
})
export type TransactionRecord = ReturnType<typeof toTransactionRecord>
