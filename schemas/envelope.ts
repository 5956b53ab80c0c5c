/** The one response envelope of the gateway (spec: Errors). */
import * as Schema from "effect/Schema"

export const ErrorCodeSchema = Schema.Literal("VALIDATION_ERROR", "POLICY_VIOLATION", "PIPELINE_ERROR", "CONFIRMATION_FAILED")
export const FailedAtSchema = Schema.Literal("validation", "policy", "build", "sign", "send", "confirm", "completed", "gateway")

export const Envelope = Schema.Struct({
  status: Schema.Literal("success", "failure"),
  errorCode: Schema.NullOr(ErrorCodeSchema),
  failedAt: Schema.NullOr(FailedAtSchema),
  stage: FailedAtSchema,
  traceId: Schema.UUID,
  data: Schema.Unknown,
  error: Schema.optional(Schema.String),
  errorMessage: Schema.optional(Schema.String)
})
export type Envelope = typeof Envelope.Type
