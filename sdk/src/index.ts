/** The agent-custody SDK: a typed client of the service (see README.md beside this package). */
export { CustodyClient, isSettled, type AgentOrder, type ClientOptions, type TransactionRequest, type WaitOptions } from "./client.js"
export type { Envelope, ErrorCode, Page, Stage } from "./envelope.js"
export { CustodyError, CustodyNetworkError, retryGuidance, type RetryGuidance } from "./errors.js"
export type * from "./generated.js"
export type { RetryOptions, TransportOptions } from "./http.js"
export type { StageEvent, StageFilter, StageStream, StreamGap, WebSocketClass, WebSocketLike } from "./stream.js"
