/**
 * Protocol risk checks, run by the pipeline before policy (and by the protocol_risk rule), in the
 * spec's order: slippage, pools, programs, pool concentration, quote age, oracle deviation.
 * Every check runs and its reason is kept in that order; the first reason is the headline.
 * A bound that is configured but whose fact is missing fails closed (deny), except where the fact
 * does not apply to the intent (slippage and quotes exist only for swaps; oracle deviation is only
 * demanded when requireOracleForSwap is set).
 */
import { isSwapLike } from "./evaluationState.js"
import { ALLOW, combineOutcomes, deny, requireApproval, type RuleOutcome } from "./outcome.js"

/** Bounds shared by the protocol risk config and the protocol_risk rule; omitted or empty lists skip a check. */
export interface ProtocolRiskLimits {
  readonly maxSlippageBps?: number | undefined
  readonly allowedPools?: ReadonlyArray<string> | undefined
  readonly allowedPrograms?: ReadonlyArray<string> | undefined
  readonly maxPoolConcentrationBps?: number | undefined
  readonly maxQuoteAgeSeconds?: number | undefined
  readonly oracleDeviationBps?: number | undefined
  readonly requireOracleForSwap?: boolean | undefined
}

/** What the pipeline knows about the intent and its built transaction. */
export interface IntentRiskFacts {
  readonly type: string
  readonly slippageBps?: number | undefined
  readonly pool?: string | undefined
  /** every pool a routed swap trades in (a split has several); when given, each must be allowed */
  readonly pools?: ReadonlyArray<string> | undefined
  readonly programIds?: ReadonlyArray<string> | undefined
  readonly amountLamports?: bigint | undefined
  readonly preBalanceLamports?: bigint | undefined
  readonly quoteAgeSeconds?: number | undefined
  readonly oracleDeviationBps?: number | undefined
  /** why there is no deviation although the mints have feeds (a stale oracle price, never compared) */
  readonly oracleUnavailable?: string | undefined
}

const isConfigured = (list: ReadonlyArray<string> | undefined): list is ReadonlyArray<string> =>
  list !== undefined && list.length > 0

/** amount / preBalance in bps, exact: amount * 10000 > bound * preBalance. A zero balance concentrates everything. */
const concentrationAbove = (amount: bigint, preBalance: bigint, boundBps: number): boolean =>
  amount * 10_000n > BigInt(boundBps) * preBalance

const concentrationBps = (amount: bigint, preBalance: bigint): string =>
  preBalance === 0n ? "all" : `${(amount * 10_000n) / preBalance} bps`

export const protocolRiskChecks = (
  limits: ProtocolRiskLimits,
  facts: IntentRiskFacts,
  label = "protocol risk"
): RuleOutcome => {
  const swap = isSwapLike(facts.type)
  const outcomes: Array<RuleOutcome> = []

  if (limits.maxSlippageBps !== undefined) {
    if (facts.slippageBps === undefined) {
      if (swap) outcomes.push(deny(`${label}: slippageBps is required for a swap`))
    } else if (facts.slippageBps > limits.maxSlippageBps) {
      outcomes.push(deny(`${label}: slippage ${facts.slippageBps} bps exceeds maxSlippageBps ${limits.maxSlippageBps}`))
    }
  }

  if (isConfigured(limits.allowedPools)) {
    const pools = facts.pools ?? (facts.pool === undefined ? [] : [facts.pool])
    const allowedPools = limits.allowedPools
    const notAllowed = pools.filter((pool) => !allowedPools.includes(pool))
    if (pools.length === 0) outcomes.push(deny(`${label}: pool is unknown, cannot check allowedPools`))
    else if (notAllowed.length > 0) outcomes.push(deny(`${label}: pool ${notAllowed.join(", ")} is not allowed`))
  }

  if (isConfigured(limits.allowedPrograms)) {
    const allowed = limits.allowedPrograms
    if (facts.programIds === undefined) {
      outcomes.push(deny(`${label}: programIds are unknown, cannot check allowedPrograms`))
    } else {
      const unlisted = facts.programIds.filter((id) => !allowed.includes(id))
      if (unlisted.length > 0) outcomes.push(deny(`${label}: program ${unlisted.join(", ")} is not allowed`))
    }
  }

  if (limits.maxPoolConcentrationBps !== undefined) {
    const { amountLamports, preBalanceLamports } = facts
    if (amountLamports === undefined || preBalanceLamports === undefined) {
      outcomes.push(deny(`${label}: amount and pre-balance are required to check maxPoolConcentrationBps`))
    } else if (concentrationAbove(amountLamports, preBalanceLamports, limits.maxPoolConcentrationBps)) {
      outcomes.push(
        deny(
          `${label}: amount is ${concentrationBps(amountLamports, preBalanceLamports)} of the balance, above maxPoolConcentrationBps ${limits.maxPoolConcentrationBps}`
        )
      )
    }
  }

  if (limits.maxQuoteAgeSeconds !== undefined) {
    if (facts.quoteAgeSeconds === undefined) {
      if (swap) outcomes.push(deny(`${label}: quote age is unknown, cannot check maxQuoteAgeSeconds`))
    } else if (facts.quoteAgeSeconds > limits.maxQuoteAgeSeconds) {
      outcomes.push(deny(`${label}: quote is ${facts.quoteAgeSeconds}s old, above maxQuoteAgeSeconds ${limits.maxQuoteAgeSeconds}`))
    }
  }

  if (facts.oracleDeviationBps === undefined) {
    if (limits.requireOracleForSwap === true && swap) {
      outcomes.push(deny(`${label}: an oracle price is required for a swap${facts.oracleUnavailable === undefined ? "" : `: ${facts.oracleUnavailable}`}`))
    }
  } else if (limits.oracleDeviationBps !== undefined && facts.oracleDeviationBps > limits.oracleDeviationBps) {
    outcomes.push(
      requireApproval(`${label}: oracle deviation ${facts.oracleDeviationBps} bps is above oracleDeviationBps ${limits.oracleDeviationBps}`)
    )
  }

  return outcomes.length === 0 ? ALLOW : combineOutcomes(outcomes)
}
