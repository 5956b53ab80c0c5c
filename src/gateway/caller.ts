/**
 * The authenticated caller of one request. Tenancy is data: `tenant` is the tenant every created
 * resource is stamped with; `readTenant` is null only for an unbound key reading across tenants.
 */
import { Context } from "effect"
import type { Scope } from "./apiKeys.js"

export interface CallerInfo {
  readonly keyId: string
  readonly tenant: string
  readonly readTenant: string | null
  readonly scopes: ReadonlySet<Scope>
  readonly traceId: string
  /** Set when the credential acts as one agent (an agent-bound key, the agent runtime): it may only
   *  execute and read that agent's state. Absent or null: an operator's credential. */
  readonly agentId?: string | null
}

export class Caller extends Context.Tag("Caller")<Caller, CallerInfo>() {}

/** The tenant a wildcard key writes to when no x-tenant-id narrows it. */
export const DEFAULT_TENANT = "default"

/** SQL helper: whether a row of `tenantId` is visible to the caller. */
export const canSee = (caller: CallerInfo, tenantId: string) =>
  caller.readTenant === null || caller.readTenant === tenantId

/** The agent a credential acts as, or null for an operator's credential. */
export const actingAgent = (caller: CallerInfo): string | null => caller.agentId ?? null
