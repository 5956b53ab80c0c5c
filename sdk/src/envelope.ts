/** The one envelope every answer of the service comes in (spec: Errors). */

export type ErrorCode = "VALIDATION_ERROR" | "POLICY_VIOLATION" | "PIPELINE_ERROR" | "CONFIRMATION_FAILED"

export type Stage = "validation" | "policy" | "build" | "sign" | "send" | "confirm" | "completed" | "gateway"

export interface Envelope<D> {
  readonly status: "success" | "failure"
  readonly errorCode: ErrorCode | null
  readonly failedAt: Stage | null
  readonly stage: string
  /** Correlates the answer with the service's logs and audit events. */
  readonly traceId: string
  readonly data: D
  readonly error?: string
  readonly errorMessage?: string
}

/** A page of a list: `{ <items>, total, limit, offset }`. */
export type Page<K extends string, T> = { readonly [P in K]: ReadonlyArray<T> } & {
  readonly total: number
  readonly limit: number
  readonly offset: number
}
