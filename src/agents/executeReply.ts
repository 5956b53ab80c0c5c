/**
 * The answer of execute, "same as transaction create": mirrors transactionReply/createStatus of
 * src/pipeline/http.ts (not exported there): 201 accepted, 202 at the approval gate, a failed one as an
 * envelope failure with the record as data; an idempotent repeat answers 200 (202 at the gate).
 */
import type { Reply } from "../gateway/envelope.js"
import { toTransactionRecord, type TransactionRow } from "../pipeline/transactionRow.js"

const failureOf = (row: TransactionRow) =>
  row.status === "failed" && row.error_code !== null
    ? { errorCode: row.error_code, failedAt: row.failed_at, stage: row.failed_at ?? "gateway", message: row.error ?? "transaction failed" }
    : undefined

const createStatus = (row: TransactionRow) => {
  if (row.status === "approval_gate") return 202
  if (row.status !== "failed") return 201
  return row.error_code === "POLICY_VIOLATION" ? 403 : row.error_code === "CONFIRMATION_FAILED" ? 200 : 500
}

export const executeReply = (row: TransactionRow, created: boolean): Reply => {
  const httpStatus = created ? createStatus(row) : row.status === "approval_gate" ? 202 : 200
  const failure = failureOf(row)
  return failure === undefined
    ? { httpStatus, data: toTransactionRecord(row), stage: row.stage }
    : { httpStatus, data: toTransactionRecord(row), failure }
}
