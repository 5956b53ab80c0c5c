/**
 * Typed errors of the service. Each knows the envelope fields it maps to (errorCode, failedAt, stage)
 * and its HTTP status, following the spec's Errors table, so a handler only fails with one of these
 * and the gateway's envelope encoder does the rest.
 */
import * as Schema from "effect/Schema"

export type ErrorCode = "VALIDATION_ERROR" | "POLICY_VIOLATION" | "PIPELINE_ERROR" | "CONFIRMATION_FAILED"
export type FailedAt = "validation" | "policy" | "build" | "sign" | "send" | "confirm" | "completed" | "gateway"

/** Missing x-api-key header (401). */
export class MissingApiKey extends Schema.TaggedError<MissingApiKey>()("MissingApiKey", {}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 401
  override get message() {
    return "Missing x-api-key header"
  }
}

/** An x-api-key that no configured key matches (401). */
export class InvalidApiKey extends Schema.TaggedError<InvalidApiKey>()("InvalidApiKey", {}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 401
  override get message() {
    return "Invalid API key"
  }
}

/** The key lacks the route's scope and `all` (403). */
export class InsufficientScope extends Schema.TaggedError<InsufficientScope>()("InsufficientScope", {
  requiredScope: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 403
  override get message() {
    return `Insufficient scope: this route requires the '${this.requiredScope}' scope`
  }
}

/** x-tenant-id differs from the key's tenant (403). */
export class TenantMismatch extends Schema.TaggedError<TenantMismatch>()("TenantMismatch", {
  keyTenant: Schema.String,
  requestedTenant: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 403
  override get message() {
    return `Tenant mismatch: this key is bound to tenant '${this.keyTenant}', not '${this.requestedTenant}'`
  }
}

/** Per-key rate limit exceeded (429). */
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", {
  limit: Schema.Number,
  resetUnixSeconds: Schema.Number
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 429
  override get message() {
    return "Rate limit exceeded"
  }
}

/** Too many failed authentication attempts from one source address in a window (429). */
export class TooManyAuthFailures extends Schema.TaggedError<TooManyAuthFailures>()("TooManyAuthFailures", {
  limit: Schema.Number,
  resetUnixSeconds: Schema.Number
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 429
  override get message() {
    return `Too many failed authentication attempts from this address (limit ${this.limit} a minute); retry after the window resets`
  }
}

/** A key already holds its limit of stage-stream connections (429). */
export class TooManyStreamConnections extends Schema.TaggedError<TooManyStreamConnections>()("TooManyStreamConnections", {
  limit: Schema.Number
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 429
  override get message() {
    return `Too many stage stream connections for this key (limit ${this.limit}); close one first`
  }
}

/** The key already holds as many waiting requests (`?waitMs=`) as one key may (429). */
export class TooManyWaiting extends Schema.TaggedError<TooManyWaiting>()("TooManyWaiting", {
  limit: Schema.Number
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 429
  override get message() {
    return `Too many waiting requests: this key already holds ${this.limit} requests waiting with waitMs; retry with waitMs=0 and poll, or when one of them answered`
  }
}

/** Schema or parameter invalid (400); the message names the field. */
export class ValidationError extends Schema.TaggedError<ValidationError>()("ValidationError", {
  message: Schema.String,
  field: Schema.optional(Schema.String)
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "validation"
  readonly httpStatus = 400
}

/** A request body that is not JSON (415): strict input, docs/decisions/input-hardening.md. */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  contentType: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "validation"
  readonly httpStatus = 415
  override get message() {
    return `content-type: ${JSON.stringify(this.contentType)} is not accepted; send the body as application/json`
  }
}

/** A resource that does not exist, or belongs to another tenant (404, [n25]). */
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", {
  resource: Schema.String,
  id: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "validation"
  readonly httpStatus = 404
  override get message() {
    return `${this.resource} ${this.id} not found`
  }
}

/** No route matches the path and method (404). */
export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", {
  method: Schema.String,
  path: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 404
  override get message() {
    return `No route for ${this.method} ${this.path}`
  }
}

/** A state transition that the current state does not allow (400), e.g. starting a running agent. */
export class InvalidState extends Schema.TaggedError<InvalidState>()("InvalidState", {
  message: Schema.String,
  currentState: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "validation"
  readonly httpStatus = 400
}

/**
 * The request was made against a state that has changed or forbids it (409): an approval carrying the hash of
 * a preview that is no longer the transaction's, or a second approval by the same operator (issue 31).
 */
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", {
  message: Schema.String,
  currentState: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "validation"
  readonly httpStatus = 409
}

/** Policy deny, capability, manifest or budget refusal (403). */
export class PolicyViolation extends Schema.TaggedError<PolicyViolation>()("PolicyViolation", {
  message: Schema.String,
  reasons: Schema.optional(Schema.Array(Schema.String))
}) {
  readonly errorCode: ErrorCode = "POLICY_VIOLATION"
  readonly failedAt: FailedAt = "policy"
  readonly httpStatus = 403
}

/** Build, sign or send failure (500). */
export class PipelineError extends Schema.TaggedError<PipelineError>()("PipelineError", {
  message: Schema.String,
  stage: Schema.Literal("build", "sign", "send")
}) {
  readonly errorCode: ErrorCode = "PIPELINE_ERROR"
  readonly httpStatus = 500
  get failedAt(): FailedAt {
    return this.stage
  }
}

/** Confirmation timeout or on-chain failure. */
export class ConfirmationFailed extends Schema.TaggedError<ConfirmationFailed>()("ConfirmationFailed", {
  message: Schema.String
}) {
  readonly errorCode: ErrorCode = "CONFIRMATION_FAILED"
  readonly failedAt: FailedAt = "confirm"
  readonly httpStatus = 200
}

/** A dependency of the gateway (database, ledger RPC) is unavailable (503). */
export class UpstreamUnavailable extends Schema.TaggedError<UpstreamUnavailable>()("UpstreamUnavailable", {
  message: Schema.String
}) {
  readonly errorCode: ErrorCode = "PIPELINE_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 503
}

/** Feature refused by the deployment's configuration (403), e.g. chaos when not enabled. */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  message: Schema.String
}) {
  readonly errorCode: ErrorCode = "VALIDATION_ERROR"
  readonly failedAt: FailedAt = "gateway"
  readonly httpStatus = 403
}

/** Every error a handler may answer with. Defects become a 500 without internals. */
export type ApiError =
  | MissingApiKey
  | InvalidApiKey
  | InsufficientScope
  | TenantMismatch
  | RateLimited
  | TooManyAuthFailures
  | TooManyStreamConnections
  | TooManyWaiting
  | ValidationError
  | UnsupportedMediaType
  | NotFound
  | RouteNotFound
  | InvalidState
  | Conflict
  | PolicyViolation
  | PipelineError
  | ConfirmationFailed
  | UpstreamUnavailable
  | Forbidden
