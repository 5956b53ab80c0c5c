/** Treasury: budget allocation and rebalancing between agents (spec: Treasury). Bookkeeping only, no on-chain move. */
import * as Schema from "effect/Schema"
import { Amount, IdempotencyKey, Timestamp, Uuid } from "./common.js"
import { PositiveLamports } from "./intent.js"

const Reason = (defaultReason: string) =>
  Schema.optionalWith(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must be 1-256 characters" }),
      Schema.maxLength(256, { message: () => "must be 1-256 characters" })
    ),
    { exact: true, default: () => defaultReason }
  )

/** Without a source the allocation raises the total budget; with one it draws from that agent. */
export const AllocateBody = Schema.Struct({
  targetAgentId: Uuid,
  lamports: PositiveLamports,
  reason: Reason("treasury allocation"),
  sourceAgentId: Schema.optionalWith(Uuid, { exact: true }),
  /** Per tenant: a repeat answers the allocation this key made (200), and moves nothing again. */
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
}).pipe(
  Schema.filter((body) =>
    body.sourceAgentId === body.targetAgentId
      ? { path: ["sourceAgentId"], message: "must differ from targetAgentId" }
      : true
  )
)
export type AllocateBody = typeof AllocateBody.Type

export const AllocateResult = Schema.Struct({
  allocationId: Uuid,
  targetAgentId: Uuid,
  sourceAgentId: Schema.optional(Uuid),
  lamports: Amount,
  reason: Schema.String,
  timestamp: Timestamp,
  targetBudgetBefore: Amount,
  targetBudgetAfter: Amount,
  sourceBudgetBefore: Schema.optional(Amount),
  sourceBudgetAfter: Schema.optional(Amount)
})
export type AllocateResult = typeof AllocateResult.Type

export const RebalanceBody = Schema.Struct({
  sourceAgentId: Uuid,
  targetAgentId: Uuid,
  lamports: PositiveLamports,
  reason: Reason("treasury rebalance"),
  /** Per tenant: a repeat answers the rebalance this key made (200), and moves nothing again. */
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
}).pipe(
  Schema.filter((body) =>
    body.sourceAgentId === body.targetAgentId
      ? { path: ["targetAgentId"], message: "must differ from sourceAgentId" }
      : true
  )
)
export type RebalanceBody = typeof RebalanceBody.Type

export const RebalanceResult = Schema.Struct({
  rebalanceId: Uuid,
  sourceAgentId: Uuid,
  targetAgentId: Uuid,
  lamports: Amount,
  reason: Schema.String,
  timestamp: Timestamp,
  sourceBudgetBefore: Amount,
  sourceBudgetAfter: Amount,
  targetBudgetBefore: Amount,
  targetBudgetAfter: Amount
})
export type RebalanceResult = typeof RebalanceResult.Type
