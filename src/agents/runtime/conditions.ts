/**
 * Rule conditions (spec: Autonomy configuration): `metric` `op` `value` over the tick's metrics
 * `tick`, `balance_lamports`, `known_wallets_count`, with `gt gte lt lte eq`. A rule's `when` holds
 * when every condition holds (AND). Pure.
 */
import type { Condition } from "../../../schemas/agent.js"

export interface TickMetrics {
  readonly tick: number
  readonly balanceLamports: bigint
  readonly knownWalletsCount: number
}

/** -1, 0 or 1. Lamports compare exactly (bigint) against an integer value; a fractional value compares as numbers. */
const compare = (actual: bigint | number, value: number): number => {
  if (typeof actual === "bigint" && Number.isInteger(value)) {
    const expected = BigInt(value)
    return actual < expected ? -1 : actual > expected ? 1 : 0
  }
  const left = Number(actual)
  return left < value ? -1 : left > value ? 1 : 0
}

const metricValue = (metric: Condition["metric"], metrics: TickMetrics): bigint | number => {
  switch (metric) {
    case "tick":
      return metrics.tick
    case "balance_lamports":
      return metrics.balanceLamports
    case "known_wallets_count":
      return metrics.knownWalletsCount
  }
}

export const conditionHolds = (condition: Condition, metrics: TickMetrics): boolean => {
  const order = compare(metricValue(condition.metric, metrics), condition.value)
  switch (condition.op) {
    case "gt":
      return order > 0
    case "gte":
      return order >= 0
    case "lt":
      return order < 0
    case "lte":
      return order <= 0
    case "eq":
      return order === 0
  }
}

/** All conditions hold. An empty list never holds (the schema requires at least one anyway). */
export const allConditionsHold = (conditions: ReadonlyArray<Condition>, metrics: TickMetrics): boolean =>
  conditions.length > 0 && conditions.every((condition) => conditionHolds(condition, metrics))
