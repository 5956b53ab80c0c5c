/**
 * The one envelope every gateway response leaves in (spec: Errors). Success and failure both carry a
 * traceId; failures name errorCode, failedAt and a message, and never internals.
 */
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { ErrorCode, FailedAt } from "../../schemas/errors.js"
import { wireJson } from "./wireJson.js"

export interface Failure {
  readonly errorCode: ErrorCode
  readonly failedAt: FailedAt | null
  readonly stage?: string
  readonly message: string
}

/** What a handler answers: data, an HTTP status, and optionally a failure (a failed transaction is 200 + failure). */
export interface Reply {
  readonly httpStatus: number
  readonly data: unknown
  readonly failure?: Failure
  readonly stage?: string
  /** Response headers beside the envelope's (a bare-array list's `x-next-cursor`). */
  readonly headers?: Record<string, string>
}

export const ok = (data: unknown, httpStatus = 200): Reply => ({ httpStatus, data })

export const envelopeBody = (reply: Reply, traceId: string) =>
  reply.failure === undefined
    ? { status: "success", errorCode: null, failedAt: null, stage: reply.stage ?? "completed", traceId, data: reply.data ?? null }
    : {
        status: "failure",
        errorCode: reply.failure.errorCode,
        failedAt: reply.failure.failedAt,
        stage: reply.failure.stage ?? reply.failure.failedAt ?? "gateway",
        traceId,
        data: reply.data ?? null,
        error: reply.failure.message,
        errorMessage: reply.failure.message
      }

export const envelopeResponse = (reply: Reply, traceId: string, headers: Record<string, string> = {}) =>
  HttpServerResponse.text(wireJson(envelopeBody(reply, traceId)), {
    status: reply.httpStatus,
    contentType: "application/json",
    headers: { "x-trace-id": traceId, ...headers }
  })

/** Errors that know their envelope fields (every class in schemas/errors.ts). */
export interface EnvelopeError {
  readonly errorCode: ErrorCode
  readonly failedAt: FailedAt
  readonly httpStatus: number
  readonly message: string
}

export const failureReply = (error: EnvelopeError, data: unknown = null): Reply => ({
  httpStatus: error.httpStatus,
  data,
  failure: { errorCode: error.errorCode, failedAt: error.failedAt, message: error.message }
})

export const internalErrorReply: Reply = {
  httpStatus: 500,
  data: null,
  failure: { errorCode: "PIPELINE_ERROR", failedAt: "gateway", message: "Internal error; see the server log for this traceId" }
}

/** The database could not be reached (its connections were lost and a new one failed): the caller may retry. */
export const databaseUnavailableReply: Reply = {
  httpStatus: 503,
  data: null,
  failure: { errorCode: "PIPELINE_ERROR", failedAt: "gateway", message: "Database unavailable; retry shortly" },
  headers: { "retry-after": "1" }
}

/**
 * The same for a write: its statement may have committed before the answer was lost, so sending it again
 * blindly could do it twice (a second transfer). The caller is told how to retry safely.
 */
export const databaseUnavailableWriteReply: Reply = {
  ...databaseUnavailableReply,
  failure: {
    errorCode: "PIPELINE_ERROR",
    failedAt: "gateway",
    message: "Database unavailable; the request may have been applied: retry shortly with the same idempotencyKey, or read the resource before sending it again"
  }
}
