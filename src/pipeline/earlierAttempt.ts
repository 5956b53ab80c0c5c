/**
 * [n7] What a retry keeps of the attempt it replaces. A retry is a fresh attempt (new build, new
 * policy decision, new approval if one is needed), so the row's per-attempt columns are cleared; the
 * earlier attempt's decision, failure, approval and failure proof move into the retry's history entry,
 * where the transaction record and `/replay` show them.
 */
import { Schema } from "effect"
import { JsonObject } from "../db/rowDecoding.js"
import type { HistoryEntryRow, TransactionRow } from "./transactionRow.js"

export const EarlierAttempt = Schema.Struct({
  /** 1 for the first attempt, 2 for the first retry, ... */
  attempt: Schema.Number,
  policyDecision: Schema.NullOr(JsonObject),
  failedAt: Schema.NullOr(Schema.String),
  errorCode: Schema.NullOr(Schema.String),
  error: Schema.NullOr(Schema.String),
  signature: Schema.NullOr(Schema.String),
  approval: Schema.NullOr(JsonObject),
  executionProof: Schema.NullOr(JsonObject)
})
export type EarlierAttempt = typeof EarlierAttempt.Type

export const RETRY_MESSAGE = "retry requested"

/** The earlier attempts recorded in a history, oldest first. */
export const earlierAttempts = (history: ReadonlyArray<HistoryEntryRow>): ReadonlyArray<EarlierAttempt> =>
  history.flatMap((entry) => (entry.earlierAttempt === undefined ? [] : [entry.earlierAttempt]))

/** The history entry a retry appends: back to `pending`, carrying the attempt it replaces. */
export const retryHistoryEntry = (row: TransactionRow, at: Date): HistoryEntryRow => ({
  status: "pending",
  stage: "validation",
  at: at.toISOString(),
  message: RETRY_MESSAGE,
  earlierAttempt: {
    attempt: earlierAttempts(row.history).length + 1,
    policyDecision: row.policy_decision,
    failedAt: row.failed_at,
    errorCode: row.error_code,
    error: row.error,
    signature: row.signature,
    approval: row.approval,
    executionProof: row.execution_proof
  }
})
