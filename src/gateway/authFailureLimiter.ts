/**
 * Failed authentication attempts per source address (a missing or unknown key): an address may fail
 * `limit` times in a fixed 60 s window; after that every attempt from it, even with a valid key, is
 * refused with 429 until the window restarts, so guessing keys stays slow. Per gateway process, like the
 * per-key rate limit; behind a proxy all clients share the proxy's address (README says both).
 */
export type AuthFailureDecision =
  | { readonly blocked: false }
  | { readonly blocked: true; readonly limit: number; readonly resetUnixSeconds: number }

/** Addresses tracked at most; past it, expired windows and then the oldest are forgotten. */
const MAX_TRACKED = 100_000

export class AuthFailureLimiter {
  private readonly windows = new Map<string, { startedAt: number; count: number }>()

  constructor(
    private readonly limit: number,
    private readonly windowMs = 60_000
  ) {}

  private current(address: string, now: number) {
    const window = this.windows.get(address)
    if (window === undefined || now - window.startedAt >= this.windowMs) return undefined
    return window
  }

  /** Whether attempts from `address` are refused now. */
  check(address: string, now = Date.now()): AuthFailureDecision {
    const window = this.current(address, now)
    if (window === undefined || window.count < this.limit) return { blocked: false }
    return { blocked: true, limit: this.limit, resetUnixSeconds: Math.ceil((window.startedAt + this.windowMs) / 1000) }
  }

  recordFailure(address: string, now = Date.now()): void {
    const window = this.current(address, now)
    if (window !== undefined) {
      window.count += 1
      return
    }
    this.windows.delete(address)
    this.windows.set(address, { startedAt: now, count: 1 })
    if (this.windows.size > MAX_TRACKED) this.forget(now)
  }

  /** Drops expired windows, then the oldest ones, so memory stays bounded under many addresses. */
  private forget(now: number): void {
    for (const [address, window] of this.windows) {
      if (now - window.startedAt >= this.windowMs) this.windows.delete(address)
    }
    for (const address of this.windows.keys()) {
      if (this.windows.size <= MAX_TRACKED / 2) break
      this.windows.delete(address)
    }
  }
}
