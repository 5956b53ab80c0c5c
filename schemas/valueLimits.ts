/**
 * Value limits (issue 34 item 1): the value that may leave a wallet, or an agent's spends, over rolling windows,
 * in USD or in SOL at oracle prices at decision time (docs/decisions/value-limits.md).
 */
import * as Schema from "effect/Schema"
import { Timestamp } from "./common.js"
import { STRICT_INPUT } from "./strict.js"

export const ValueCurrency = Schema.Literal("USD", "SOL").annotations({
  identifier: "ValueCurrency",
  message: () => ({ message: "must be USD or SOL", override: true })
})
export type ValueCurrency = typeof ValueCurrency.Type

/** Up to 30 days, as the rate-limit windows. */
export const MAX_VALUE_WINDOW_SECONDS = 2_592_000

const WindowSeconds = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(1, MAX_VALUE_WINDOW_SECONDS, { message: () => `must be between 1 and ${MAX_VALUE_WINDOW_SECONDS} seconds` })
)

/** A decimal amount of the currency: USD to the micro-dollar, SOL to the lamport. */
const Decimal = Schema.Union(
  Schema.Number.pipe(Schema.nonNegative({ message: () => "must not be negative" }), Schema.finite()),
  Schema.String.pipe(Schema.pattern(/^(0|[1-9][0-9]{0,14})(\.[0-9]{1,9})?$/, { message: () => "must be a non-negative decimal (at most 9 decimals)" }))
).annotations({ message: () => ({ message: "must be a non-negative decimal number or string", override: true }) })

export const ValueLimitInput = Schema.Struct({
  currency: ValueCurrency,
  windowSeconds: WindowSeconds,
  max: Decimal
}).annotations({ identifier: "ValueLimitInput", ...STRICT_INPUT })

/** PUT /risk/value-limits/<scope>/<id>: the whole set (an empty list clears it). */
export const ValueLimitsUpdate = Schema.Struct({
  limits: Schema.Array(ValueLimitInput).pipe(Schema.maxItems(8, { message: () => "at most 8 limits" }))
}).annotations({ identifier: "ValueLimitsUpdate", ...STRICT_INPUT })
export type ValueLimitsUpdate = typeof ValueLimitsUpdate.Type

export const ValueLimitScope = Schema.Literal("wallet", "agent").annotations({
  message: () => ({ message: "must be wallet or agent", override: true })
})

/** One limit with its use now: `used` and `remaining` in the limit's currency (decimal strings), over the window ending now. */
export const ValueLimitState = Schema.Struct({
  currency: ValueCurrency,
  windowSeconds: Schema.Number,
  max: Schema.String,
  used: Schema.String,
  remaining: Schema.String,
  windowStart: Timestamp
})

export const ValueLimits = Schema.Struct({
  scope: ValueLimitScope,
  targetId: Schema.String,
  limits: Schema.Array(ValueLimitState),
  updatedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "ValueLimits" })
export type ValueLimits = typeof ValueLimits.Type

export const ValueLimitParams = Schema.Struct({ scope: ValueLimitScope, targetId: Schema.UUID })
