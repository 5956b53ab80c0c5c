/**
 * What the pure evaluator needs from the outside world, and what it asks the store to write back.
 * The store computes the snapshot with a few SQL queries under the wallet's row lock, calls the
 * evaluator, and applies the effects in the same SQL transaction. See `requiredState` for which
 * parts a given set of policies needs.
 */
import { typeFactsOf } from "../protocols/registry.js"
import type { TransactionEffect } from "../../schemas/effect.js"
import type { EvaluateRequest } from "../../schemas/policy.js"

// Projected portfolio metrics are the risk component's (it computes them); the evaluator reads them.
import type { PortfolioMetrics } from "../risk/projectedMetrics.js"
export type { PortfolioMetrics }

/** Facts about the built transaction that only the pipeline knows (protocol_risk needs them). */
export interface TransactionFacts {
  readonly pool?: string | undefined
  readonly preBalanceLamports?: bigint | undefined
  readonly quoteAgeSeconds?: number | undefined
  readonly oracleDeviationBps?: number | undefined
  /** a swap's output mint (token_allowlist checks it beside the input mint) */
  readonly outputMint?: string | undefined
  /** the simulated whole effect on the wallet (effect_bounds judges it) */
  readonly effect?: TransactionEffect | undefined
}

export interface EvaluationState {
  /** The evaluation instant when the request carries no timestamp. */
  readonly now: Date
  /** Lamports already counted for the wallet on `utcDayKey(instant)`; needed by daily limits. */
  readonly dailySpentLamports?: bigint | undefined
  /**
   * For each rate_limit window length (seconds): the number of events recorded for
   * `rateLimitKey(request)` and that window length, with `at > instant - windowSeconds`.
   */
  readonly rateCounts?: ReadonlyMap<number, number> | undefined
  readonly portfolio?: PortfolioMetrics | undefined
  /** Why the portfolio metrics could not be computed (e.g. a position without an oracle price). */
  readonly portfolioUnavailable?: string | undefined
  readonly transaction?: TransactionFacts | undefined
}

export interface RateEvent {
  readonly key: string
  readonly windowSeconds: number
}

/** Writes the store applies atomically with the decision. */
export interface PolicyEffects {
  /** Added to the wallet's counter for `utcDay`. 0n when nothing is to be counted. */
  readonly addDailySpendLamports: bigint
  readonly utcDay: string
  /** One event per distinct rate_limit window length, recorded at `at`, for key `key`. */
  readonly rateEvents: ReadonlyArray<RateEvent>
  readonly at: Date
}

/** Placeholder agent part of the rate key when the request has no agent (spec: fixed placeholder). */
export const NO_AGENT = "-"

export const rateLimitKey = (request: Pick<EvaluateRequest, "walletId" | "agentId">): string =>
  `${request.walletId}:${request.agentId ?? NO_AGENT}`

/** The instant rules look at: the request's timestamp, else the caller's clock. */
export const evaluationInstant = (request: Pick<EvaluateRequest, "timestamp">, now: Date): Date =>
  request.timestamp ?? now

/** Types that carry a slippage and a quote (their facts say so); slippage checks apply to them. */
export const isSwapLike = (type: string): boolean => typeFactsOf(type)?.swapsAtQuote === true

/** What every rule evaluator receives. */
export interface RuleContext {
  readonly request: EvaluateRequest
  readonly instant: Date
  readonly state: EvaluationState
}
