/**
 * Typed failures, and the spec's retry guidance: VALIDATION_ERROR and POLICY_VIOLATION are not retried unchanged,
 * PIPELINE_ERROR may be retried with exponential backoff, CONFIRMATION_FAILED may use the retry endpoint.
 */
import type { Envelope, ErrorCode, Stage } from "./envelope.js"

export type RetryGuidance = "do-not-retry" | "retry-with-backoff" | "use-retry-endpoint"

export const retryGuidance = (errorCode: ErrorCode | null): RetryGuidance =>
  errorCode === "PIPELINE_ERROR" ? "retry-with-backoff" : errorCode === "CONFIRMATION_FAILED" ? "use-retry-endpoint" : "do-not-retry"

/** The service answered a failure envelope. */
export class CustodyError extends Error {
  override readonly name = "CustodyError"
  readonly httpStatus: number
  readonly errorCode: ErrorCode | null
  readonly failedAt: Stage | null
  readonly stage: string
  readonly traceId: string
  /** The envelope's data (null, or what the failure concerns). */
  readonly data: unknown
  /** What the spec advises for this errorCode. */
  readonly guidance: RetryGuidance

  constructor(httpStatus: number, envelope: Envelope<unknown>) {
    super(envelope.error ?? envelope.errorMessage ?? `HTTP ${httpStatus}`)
    this.httpStatus = httpStatus
    this.errorCode = envelope.errorCode
    this.failedAt = envelope.failedAt
    this.stage = envelope.stage
    this.traceId = envelope.traceId
    this.data = envelope.data
    // A rate limit is waited out, whatever its errorCode says.
    this.guidance = httpStatus === 429 ? "retry-with-backoff" : retryGuidance(envelope.errorCode)
  }
}

/** No answer at all: the service could not be reached, or answered something that is not the envelope. */
export class CustodyNetworkError extends Error {
  override readonly name = "CustodyNetworkError"
  constructor(message: string, options?: { readonly cause?: unknown }) {
    super(message, options)
  }
}
