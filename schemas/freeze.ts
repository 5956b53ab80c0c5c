/**
 * The kill switch (issue 34 item 3, docs/decisions/freeze.md): an operator's freeze of a tenant, a wallet or
 * an agent. From the moment a freeze commits nothing of its scope is signed; lifting it is an operator act.
 */
import * as Schema from "effect/Schema"
import { PaginationQuery, Timestamp, Uuid } from "./common.js"
import { STRICT_INPUT } from "./strict.js"

export const FreezeScope = Schema.Literal("tenant", "wallet", "agent").annotations({
  identifier: "FreezeScope",
  message: () => ({ message: "must be one of tenant, wallet, agent", override: true })
})
export type FreezeScope = typeof FreezeScope.Type

const Reason = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be 1-500 characters" }),
  Schema.maxLength(500, { message: () => "must be 1-500 characters" })
)

const TargetId = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be 1-128 characters" }),
  Schema.maxLength(128, { message: () => "must be 1-128 characters" })
)

/** POST /risk/freezes: what to freeze and why. `targetId` is the wallet's or agent's id, or the tenant (default: the caller's). */
export const FreezeCreate = Schema.Struct({
  scope: FreezeScope,
  targetId: Schema.optional(TargetId),
  reason: Reason
}).annotations({ identifier: "FreezeCreate", ...STRICT_INPUT })
export type FreezeCreate = typeof FreezeCreate.Type

/** POST /risk/freezes/<id>/lift: why it is lifted. */
export const FreezeLift = Schema.Struct({
  reason: Schema.optional(Reason)
}).annotations({ identifier: "FreezeLift", ...STRICT_INPUT })
export type FreezeLift = typeof FreezeLift.Type

/** What the freeze did when it committed: transactions failed at the gate, agents paused. */
export const FreezeEffects = Schema.Struct({
  failedAtGate: Schema.Array(Uuid),
  pausedAgents: Schema.Array(Uuid)
})

export const Freeze = Schema.Struct({
  id: Uuid,
  tenantId: Schema.String,
  scope: FreezeScope,
  targetId: Schema.String,
  reason: Schema.String,
  active: Schema.Boolean,
  frozenBy: Schema.String,
  frozenAt: Timestamp,
  unfrozenAt: Schema.NullOr(Timestamp),
  unfrozenBy: Schema.NullOr(Schema.String),
  unfreezeReason: Schema.NullOr(Schema.String),
  effects: Schema.optional(FreezeEffects)
}).annotations({ identifier: "Freeze" })
export type Freeze = typeof Freeze.Type

export const FreezeListQuery = Schema.Struct({
  ...PaginationQuery.fields,
  state: Schema.optionalWith(Schema.Literal("active", "all"), { default: () => "active" as const })
}).annotations({ ...STRICT_INPUT })

export const FreezeIdParams = Schema.Struct({ freezeId: Uuid })

/** The text that names a freeze in every refusal and failure it causes. */
export const freezeNotice = (freeze: { readonly scope: string; readonly targetId: string; readonly id: string; readonly frozenAt: string; readonly reason: string }) =>
  `frozen: ${freeze.scope} ${freeze.targetId} is frozen (freeze ${freeze.id}, since ${freeze.frozenAt}): ${freeze.reason}`
