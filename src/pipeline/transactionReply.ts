/**
 * How a transaction leaves the gateway: a failed one is an envelope failure with the record as data.
 * The create answer (also execute's and the escrow helpers'): 201 accepted, 202 at the approval gate,
 * a failure's own status (403 policy, 500 pipeline, 200 confirmation); an idempotent repeat 200 (202 at the gate).
 */
import type { Reply } from "../gateway/envelope.js"
import { toTransactionRecord, type TransactionRecordRow } from "./transactionRow.js"

const failureOf = (row: TransactionRecordRow) =>
  row.status === "failed" && row.error_code !== null
    ? { errorCode: row.error_code, failedAt: row.failed_at, stage: row.failed_at ?? "gateway", message: row.error ?? "transaction failed" }
    : undefined

export const transactionReply = (row: TransactionRecordRow, httpStatus: number): Reply => {
  const failure = failureOf(row)
  return failure === undefined ? { httpStatus, data: toTransactionRecord(row), stage: row.stage } : { httpStatus, data: toTransactionRecord(row), failure }
}

const createStatus = (row: TransactionRecordRow) => {
  if (row.status === "approval_gate") return 202
  if (row.status !== "failed") return 201
  return row.error_code === "POLICY_VIOLATION" ? 403 : row.error_code === "CONFIRMATION_FAILED" ? 200 : 500
}

export const createdReply = (row: TransactionRecordRow, created: boolean): Reply =>
  transactionReply(row, created ? createStatus(row) : row.status === "approval_gate" ? 202 : 200)

/**
 * The answer of a retry: 202 for a fresh attempt (or one left unresolved because an earlier signature
 * may still land), 200 with the outcome when an earlier signature had landed (adopted), and for a
 * transaction still at `submitting` its current state with a message, changing nothing (400).
 */
export const retryReply = (retried: { readonly outcome: "retried" | "adopted" | "unresolved" | "unchanged"; readonly row: TransactionRecordRow }): Reply => {
  const { outcome, row } = retried
  if (outcome === "adopted") return transactionReply(row, 200)
  if (outcome !== "unchanged") return transactionReply(row, 202)
  const message = `transaction ${row.id} is submitting: its signed bytes may be on their way, so it is not built again; ${
    row.error ?? "it ends confirmed or failed as the chain decides"
  }. Nothing was changed; read it again for the outcome`
  return { httpStatus: 400, data: toTransactionRecord(row), failure: { errorCode: "VALIDATION_ERROR", failedAt: "validation", stage: "validation", message } }
}

