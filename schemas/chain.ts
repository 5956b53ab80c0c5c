/** Chain operations: RPC pool status, chaos config, outbox jobs (spec: Health and operations, Outbox job). */
import * as Schema from "effect/Schema"
import { Timestamp, Uuid } from "./common.js"

export const RpcEndpointStatus = Schema.Struct({
  url: Schema.String,
  score: Schema.Number,
  successes: Schema.Number,
  failures: Schema.Number,
  avgLatencyMs: Schema.Number,
  failStreak: Schema.Number,
  lastCheckedAt: Schema.NullOr(Timestamp),
  lastError: Schema.optional(Schema.String)
})
export type RpcEndpointStatus = typeof RpcEndpointStatus.Type

export const RpcPoolStatus = Schema.Struct({ endpoints: Schema.Array(RpcEndpointStatus) })

const Rate = Schema.Number.pipe(Schema.between(0, 1, { message: () => "must be between 0 and 1" }))
const LatencyMs = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(0, 60_000, { message: () => "must be between 0 and 60000" })
)

export const FailureRates = Schema.Struct({ simulation: Rate, build: Rate, sign: Rate, send: Rate })
export type FailureRates = typeof FailureRates.Type

export const ChaosConfig = Schema.Struct({ enabled: Schema.Boolean, failureRates: FailureRates, latencyMs: LatencyMs })
export type ChaosConfig = typeof ChaosConfig.Type

export const DEFAULT_CHAOS: ChaosConfig = {
  enabled: false,
  failureRates: { simulation: 0, build: 0, sign: 0, send: 0 },
  latencyMs: 0
}

/** Body of `PUT /chaos`: only the given fields change; `failureRates`, when given, is the whole map (missing stages 0). */
export const ChaosUpdateBody = Schema.Struct({
  enabled: Schema.optionalWith(Schema.Boolean, { exact: true }),
  failureRates: Schema.optionalWith(
    Schema.Struct({
      simulation: Schema.optionalWith(Rate, { exact: true }),
      build: Schema.optionalWith(Rate, { exact: true }),
      sign: Schema.optionalWith(Rate, { exact: true }),
      send: Schema.optionalWith(Rate, { exact: true })
    }),
    { exact: true }
  ),
  latencyMs: Schema.optionalWith(LatencyMs, { exact: true })
})
export type ChaosUpdateBody = typeof ChaosUpdateBody.Type

export const OutboxAction = Schema.Literal("execute", "retry", "approve")
export type OutboxAction = typeof OutboxAction.Type

export const OutboxJobStatus = Schema.Literal("pending", "processing", "done", "failed")
export type OutboxJobStatus = typeof OutboxJobStatus.Type

export const OutboxJob = Schema.Struct({
  id: Uuid,
  txId: Uuid,
  action: OutboxAction,
  status: OutboxJobStatus,
  attempts: Schema.Number,
  leaseId: Schema.NullOr(Schema.String),
  leaseExpiresAt: Schema.NullOr(Timestamp),
  lastError: Schema.optional(Schema.String),
  createdAt: Timestamp
})
export type OutboxJob = typeof OutboxJob.Type

export const OutboxStats = Schema.Struct({
  pending: Schema.Number,
  processing: Schema.Number,
  failed: Schema.Number,
  done: Schema.Number
})
export type OutboxStats = typeof OutboxStats.Type
