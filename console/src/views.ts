/**
 * The console's views, the scope each needs (src/gateway/routeScopes.ts) and the route probed at login
 * to learn whether the key has it: a 403 disables the view ("needs scope X"), a 401 refuses the login.
 */
export interface ViewInfo {
  readonly id: string
  readonly title: string
  readonly scope: string
  readonly probe: string
}

export const VIEWS: ReadonlyArray<ViewInfo> = [
  { id: "transactions", title: "Transactions", scope: "transactions", probe: "/api/v1/outbox/stats" },
  { id: "approvals", title: "Approvals", scope: "transactions", probe: "/api/v1/outbox/stats" },
  { id: "agents", title: "Agents", scope: "agents", probe: "/api/v1/agents" },
  { id: "wallets", title: "Wallets", scope: "wallets", probe: "/api/v1/wallets?limit=1" },
  { id: "policies", title: "Policies", scope: "policies", probe: "/api/v1/policies" },
  { id: "audit", title: "Audit", scope: "audit", probe: "/api/v1/audit/events?limit=1" },
  { id: "keys", title: "API keys", scope: "keys", probe: "/api/v1/keys?limit=1" },
  { id: "operations", title: "Operations", scope: "audit", probe: "/api/v1/metrics" }
]

/** What the login probe learned: for each view, undefined when usable, else the refusal's message. */
export type Access = Readonly<Record<string, string | undefined>>
