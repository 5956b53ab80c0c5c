import { Data } from "effect"

/**
 * A JSON-RPC error answer from a healthy endpoint (a preflight failure, an invalid
 * parameter, a blockhash not found): a real answer, returned to the caller, not retried
 * elsewhere. `url` is redacted.
 */
export class RpcApplicationError extends Data.TaggedError("RpcApplicationError")<{
  readonly method: string
  readonly url: string
  readonly code: number
  readonly rpcMessage: string
  readonly data?: unknown
  readonly message: string
}> {}

export interface RpcAttemptFailure {
  readonly url: string
  readonly error: string
}

/** Every endpoint failed at the transport level (network, HTTP 5xx/429, timeout, not JSON-RPC). */
export class RpcUnavailableError extends Data.TaggedError("RpcUnavailableError")<{
  readonly method: string
  readonly attempts: ReadonlyArray<RpcAttemptFailure>
  readonly message: string
}> {}
