/**
 * Which scope a route needs: the spec's route-to-scope table, plus our decisions for the routes the
 * spec leaves open ([n17], docs/decisions.md).
 */
import type { Scope } from "./apiKeys.js"

const PREFIX_SCOPES: ReadonlyArray<readonly [prefix: string, scope: Scope]> = [
  ["/api/v1/wallets", "wallets"],
  ["/api/v1/transactions", "transactions"],
  ["/api/v1/policies", "policies"],
  ["/api/v1/agents", "agents"],
  ["/api/v1/protocols", "protocols"],
  ["/api/v1/risk", "risk"],
  ["/api/v1/audit", "audit"],
  ["/mcp", "mcp"],
  // [n17] decisions
  ["/api/v1/evaluate", "policies"],
  ["/api/v1/chaos", "risk"],
  ["/api/v1/defi", "protocols"],
  ["/api/v1/escrow", "transactions"],
  ["/api/v1/strategy", "strategy"],
  ["/api/v1/treasury", "treasury"],
  ["/api/v1/metrics", "audit"],
  ["/api/v1/rpc", "transactions"],
  ["/api/v1/outbox", "transactions"],
  ["/api/v1/runtime", "agents"],
  ["/api/v1/stream", "transactions"],
  // Prometheus scrapes (docs/decisions/observability.md); webhook subscriptions have a scope of their own.
  ["/metrics", "audit"],
  ["/api/v1/webhooks", "webhooks"],
  // Issued API keys (issue 36): a scope of their own, since a key that issues keys can grant what it holds.
  ["/api/v1/keys", "keys"]
]

/** The scope for a path, or undefined for routes outside the table (those are refused as unknown). */
export const scopeForPath = (path: string): Scope | undefined => {
  for (const [prefix, scope] of PREFIX_SCOPES) {
    if (path === prefix || path.startsWith(prefix + "/")) return scope
  }
  return undefined
}

export const ROUTE_SCOPE_TABLE = PREFIX_SCOPES
