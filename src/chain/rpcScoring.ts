/**
 * Pure RPC endpoint scoring (spec "RPC pool"): start 1.0; a success adds 0.06 minus a
 * latency penalty; a failure multiplies by 0.7; floor 0.05. Our decisions
 * (docs/decisions/pipeline.md): the score is capped at 1.0 so a long-healthy endpoint
 * does not bank credit that hides a later outage, and average latency is an
 * exponential moving average (weight 0.2) of successful calls.
 */

export const SCORE_START = 1.0
export const SCORE_FLOOR = 0.05
export const SCORE_CEILING = 1.0
export const SUCCESS_BONUS = 0.06
export const FAILURE_FACTOR = 0.7
export const LATENCY_EMA_WEIGHT = 0.2

export interface RpcEndpointStatus {
  readonly url: string
  readonly score: number
  readonly successes: number
  readonly failures: number
  readonly avgLatencyMs: number
  readonly failStreak: number
  readonly lastCheckedAt: string | null
  readonly lastError?: string
}

export const initialEndpointStatus = (url: string): RpcEndpointStatus => ({
  url,
  score: SCORE_START,
  successes: 0,
  failures: 0,
  avgLatencyMs: 0,
  failStreak: 0,
  lastCheckedAt: null
})

/** ≤200 ms: 0; 201-500: 0.04; 501-1000: 0.08; above 1000: 0.12. */
export const latencyPenalty = (latencyMs: number): number => {
  if (latencyMs <= 200) return 0
  if (latencyMs <= 500) return 0.04
  if (latencyMs <= 1000) return 0.08
  return 0.12
}

// six decimals keep repeated float steps from drifting ties apart
const roundScore = (score: number): number => Math.round(score * 1e6) / 1e6
const clampScore = (score: number): number => roundScore(Math.min(SCORE_CEILING, Math.max(SCORE_FLOOR, score)))

export const recordSuccess = (status: RpcEndpointStatus, latencyMs: number, at: Date): RpcEndpointStatus => {
  const avgLatencyMs =
    status.successes === 0
      ? Math.round(latencyMs)
      : Math.round(status.avgLatencyMs + LATENCY_EMA_WEIGHT * (latencyMs - status.avgLatencyMs))
  const { lastError: _dropped, ...rest } = status
  return {
    ...rest,
    score: clampScore(status.score + SUCCESS_BONUS - latencyPenalty(latencyMs)),
    successes: status.successes + 1,
    avgLatencyMs,
    failStreak: 0,
    lastCheckedAt: at.toISOString()
  }
}

export const recordFailure = (status: RpcEndpointStatus, error: string, at: Date): RpcEndpointStatus => ({
  ...status,
  score: clampScore(status.score * FAILURE_FACTOR),
  failures: status.failures + 1,
  failStreak: status.failStreak + 1,
  lastCheckedAt: at.toISOString(),
  lastError: error
})

/** Highest score first; ties by lower average latency; further ties keep the given order. */
export const rankEndpoints = <S extends Pick<RpcEndpointStatus, "score" | "avgLatencyMs">>(
  statuses: ReadonlyArray<S>
): S[] => [...statuses].sort((a, b) => b.score - a.score || a.avgLatencyMs - b.avgLatencyMs)
