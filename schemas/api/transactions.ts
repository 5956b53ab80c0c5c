/** Transaction endpoints (spec: Transactions; wallet lists [n12][n28]; approvals). */
import * as Schema from "effect/Schema"
import { Page, PaginationQuery } from "../common.js"
import { CreateTransactionBody, ExecutionProof, RejectBody, Replay, Transaction, TxIdParams } from "../transaction.js"
import { ApproveBody } from "../approval.js"
import { endpoint } from "./endpoint.js"
import { WalletIdParams } from "./wallets.js"

/** The longest a create may wait for its outcome (`?waitMs=`). */
export const MAX_CREATE_WAIT_MS = 30_000

/**
 * `?waitMs=` (0-30000): how long a create waits for the transaction to be confirmed, failed or at the
 * approval gate before it answers; without it the configured default (TX_CREATE_WAIT_MS) applies.
 */
export const CreateWaitQuery = Schema.Struct({
  waitMs: Schema.optional(
    Schema.NumberFromString.pipe(
      Schema.int({ message: () => "must be an integer" }),
      Schema.between(0, MAX_CREATE_WAIT_MS, { message: () => `must be between 0 and ${MAX_CREATE_WAIT_MS}` })
    )
  )
})

export const TransactionListQuery = Schema.extend(PaginationQuery, Schema.Struct({ status: Schema.optional(Schema.String) }))

/** Named, so the document lists them once as components. */
export const TransactionRecord = Transaction.annotations({ identifier: "Transaction" })

export const TransactionPage = Page("transactions", TransactionRecord)

/** A transaction's answer: the record, also in the failure envelope of a failed one. */
const record = { success: TransactionRecord, recordOnFailure: true } as const

/**
 * What a create reads: the request, and an agent's signed capability manifest (docs/decisions/agents.md,
 * [manifest]; also accepted as the `x-agent-manifest` header). The manifest is checked by the pipeline and
 * is not part of the stored request.
 */
const CreateTransactionRequestBody = Schema.extend(
  CreateTransactionBody,
  Schema.Struct({ manifest: Schema.optionalWith(Schema.Record({ key: Schema.String, value: Schema.Unknown }), { exact: true }) })
).annotations({ identifier: "CreateTransactionRequestBody" })

export const TransactionsApi = {
  create: endpoint("transactions", "POST", "/api/v1/transactions", {
    summary: "Submit an intent: 201 accepted or done, 202 at the approval gate, 200 an idempotent repeat",
    query: CreateWaitQuery,
    body: CreateTransactionRequestBody,
    successStatuses: [201, 202, 200],
    ...record
  }),
  get: endpoint("transactions", "GET", "/api/v1/transactions/:txId", { summary: "A transaction", params: TxIdParams, ...record }),
  approve: endpoint("transactions", "POST", "/api/v1/transactions/:txId/approve", {
    summary: "Approve a transaction waiting at the approval gate (with the hash of the preview approved: 409 when it changed)",
    params: TxIdParams,
    body: ApproveBody,
    ...record
  }),
  reject: endpoint("transactions", "POST", "/api/v1/transactions/:txId/reject", {
    summary: "Reject a transaction waiting at the approval gate",
    params: TxIdParams,
    body: RejectBody,
    ...record
  }),
  retry: endpoint("transactions", "POST", "/api/v1/transactions/:txId/retry", {
    summary: "Retry a failed transaction: 202 a fresh attempt, 200 an earlier signature that landed (adopted)",
    params: TxIdParams,
    successStatuses: [202, 200],
    ...record
  }),
  proof: endpoint("transactions", "GET", "/api/v1/transactions/:txId/proof", {
    summary: "The execution proof of a confirmed transaction",
    params: TxIdParams,
    success: ExecutionProof.annotations({ identifier: "ExecutionProof" })
  }),
  replay: endpoint("transactions", "GET", "/api/v1/transactions/:txId/replay", {
    summary: "What the pipeline decided and saw, stage by stage",
    params: TxIdParams,
    success: Replay.annotations({ identifier: "Replay" })
  }),
  listByWallet: endpoint("transactions", "GET", "/api/v1/wallets/:walletId/transactions", {
    summary: "A wallet's transactions, newest first",
    params: WalletIdParams,
    query: TransactionListQuery,
    success: TransactionPage
  }),
  pendingApprovals: endpoint("transactions", "GET", "/api/v1/wallets/:walletId/pending-approvals", {
    summary: "A wallet's transactions waiting at the approval gate",
    params: WalletIdParams,
    query: PaginationQuery,
    success: TransactionPage
  })
}
