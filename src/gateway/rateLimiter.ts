/**
 * Per-key fixed-window rate limit (spec: a 60,000 ms window that restarts when it elapsed; the request
 * that makes the count exceed the limit gets 429). Kept per gateway process: with N gateways a key may
 * make up to N x limit requests a minute (README says so).
 */
export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  readonly resetUnixSeconds: number
}

export class FixedWindowRateLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>()

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000
  ) {}

  take(key: string, now = Date.now()): RateDecision {
    let window = this.windows.get(key)
    if (window === undefined || now - window.startedAt >= this.windowMs) {
      window = { startedAt: now, count: 0 }
      this.windows.set(key, window)
    }
    window.count += 1
    return {
      allowed: window.count <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.count),
      resetUnixSeconds: Math.ceil((window.startedAt + this.windowMs) / 1000)
    }
  }
}
