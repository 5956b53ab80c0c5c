/**
 * How a stage ends badly. `Terminal` writes `failed` with the spec's failedAt and errorCode; `Retryable`
 * gives the job back to the outbox (RPC outage, chaos, a lost lease) to be tried again later, up to
 * TX_OUTBOX_MAX_ATTEMPTS.
 */
import { Data } from "effect"

export class Terminal extends Data.TaggedError("Terminal")<{
  readonly failedAt: "validation" | "policy" | "build" | "sign" | "send" | "confirm"
  readonly errorCode: "VALIDATION_ERROR" | "POLICY_VIOLATION" | "PIPELINE_ERROR" | "CONFIRMATION_FAILED"
  readonly message: string
  readonly stage: string
}> {}

export class Retryable extends Data.TaggedError("Retryable")<{
  readonly message: string
  readonly failedAt: "build" | "sign" | "send" | "confirm" | "policy"
}> {}
