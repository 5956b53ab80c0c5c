/**
 * The spec's Authentication rules 1-9: key presence and validity, scope by route, tenant binding,
 * per-key rate limit; and failed attempts per source address (authFailureLimiter.ts). Over the request's
 * headers and address and the in-memory key ring; the gateway and the stage stream call it. A key is an
 * issued one (keyRing.ts: the database's, kept current by NOTIFY) or a bootstrap one (API_GATEWAY_API_KEYS);
 * uses and failed uses are handed to the key ring, which records them in batches.
 */
import { Effect } from "effect"
import { InsufficientScope, InvalidApiKey, MissingApiKey, RateLimited, TenantMismatch, TooManyAuthFailures } from "../../schemas/errors.js"
import { type ApiKeyEntry, findApiKey, hasScope, SCOPES, type Scope } from "./apiKeys.js"
import type { KeyRefusal, KeyRingService } from "./keyRing.js"
import type { AuthFailureLimiter } from "./authFailureLimiter.js"
import { type CallerInfo, DEFAULT_TENANT } from "./caller.js"
import { INNER_CALL_HEADER, isInnerCall } from "./innerCall.js"
import type { FixedWindowRateLimiter, RateDecision } from "./rateLimiter.js"

export interface AuthSettings {
  readonly enforceAuth: boolean
  /** The bootstrap keys (API_GATEWAY_API_KEYS). */
  readonly keys: ReadonlyArray<ApiKeyEntry>
  readonly keyRing: KeyRingService
  readonly rateLimiter: FixedWindowRateLimiter
  readonly authFailures: AuthFailureLimiter
}

export type AuthError = MissingApiKey | InvalidApiKey | InsufficientScope | TenantMismatch | RateLimited | TooManyAuthFailures

export interface AuthResult {
  readonly caller: CallerInfo
  readonly rate: RateDecision | null
  /** The key that authenticated (null without authentication), for a connection that outlives the request. */
  readonly entry: ApiKeyEntry | null
}

const headerValue = (headers: Readonly<Record<string, string | undefined>>, name: string) => {
  const value = headers[name]
  return value === undefined || value.trim() === "" ? undefined : value.trim()
}

export const authenticate = (
  settings: AuthSettings,
  headers: Readonly<Record<string, string | undefined>>,
  requiredScope: Scope,
  traceId: string,
  /** The peer's address; undefined when unknown (then no per-address limit applies). */
  sourceAddress: string | undefined
): Effect.Effect<AuthResult, AuthError> =>
  Effect.gen(function* () {
    const requestedTenant = headerValue(headers, "x-tenant-id")
    if (!settings.enforceAuth) {
      // Development only: every scope, tenant from the header.
      const tenant = requestedTenant !== undefined && requestedTenant !== "*" ? requestedTenant : DEFAULT_TENANT
      return {
        caller: { keyId: "anonymous", tenant, readTenant: requestedTenant === "*" ? null : tenant, scopes: new Set<Scope>(SCOPES), traceId },
        rate: null,
        entry: null
      }
    }
    // A tool call's inner request (innerCall.ts) comes from this process's own address: its outer /mcp request
    // was checked against the caller's real address. Judging the inner one by 127.0.0.1 would let anything that
    // fails from loopback lock every tenant's tool calls out, so it neither counts as a failure nor is blocked.
    const inner = isInnerCall(headerValue(headers, INNER_CALL_HEADER))
    const limitedAddress = inner ? undefined : sourceAddress
    if (limitedAddress !== undefined) {
      const guard = settings.authFailures.check(limitedAddress)
      if (guard.blocked) return yield* new TooManyAuthFailures({ limit: guard.limit, resetUnixSeconds: guard.resetUnixSeconds })
    }
    const failed = <E>(error: E) => {
      if (limitedAddress !== undefined) settings.authFailures.recordFailure(limitedAddress)
      return Effect.fail(error)
    }
    /** A refused use of a key the caller holds (or guessed): recorded for the audit log. */
    const refusedUse = (entry: { keyId: string; tenant: string } | null, reason: KeyRefusal) =>
      settings.keyRing.recordFailure({ keyId: entry?.keyId ?? null, tenant: entry?.tenant ?? null, reason, sourceAddress })
    const presented = headerValue(headers, "x-api-key")
    if (presented === undefined) return yield* failed(new MissingApiKey())
    const issued = settings.keyRing.find(presented, Date.now())
    if (issued._tag === "Refused") {
      settings.keyRing.recordFailure({ keyId: issued.keyId, tenant: issued.tenant, reason: issued.reason, sourceAddress })
      return yield* failed(new InvalidApiKey())
    }
    const entry = issued._tag === "Found" ? issued.entry : findApiKey(settings.keys, presented)
    if (entry === undefined) {
      refusedUse(null, "unknown")
      return yield* failed(new InvalidApiKey())
    }

    // A tool call's inner request was counted when its /mcp request came in (innerCall.ts).
    const rate = inner ? null : settings.rateLimiter.take(entry.keyId)
    if (rate !== null && !rate.allowed) return yield* new RateLimited({ limit: rate.limit, resetUnixSeconds: rate.resetUnixSeconds })

    if (!hasScope(entry, requiredScope)) {
      refusedUse(entry, "insufficient_scope")
      return yield* new InsufficientScope({ requiredScope })
    }

    let tenant: string
    let readTenant: string | null
    if (entry.tenant === "*") {
      // An unbound key acts for the tenant it names; without one (or with `*`) it reads every tenant.
      tenant = requestedTenant !== undefined && requestedTenant !== "*" ? requestedTenant : DEFAULT_TENANT
      readTenant = requestedTenant !== undefined && requestedTenant !== "*" ? requestedTenant : null
    } else {
      if (requestedTenant !== undefined && requestedTenant !== "*" && requestedTenant !== entry.tenant) {
        refusedUse(entry, "tenant_mismatch")
        return yield* new TenantMismatch({ keyTenant: entry.tenant, requestedTenant })
      }
      tenant = entry.tenant
      readTenant = entry.tenant
    }
    settings.keyRing.recordUse(entry)
    return { caller: { keyId: entry.keyId, tenant, readTenant, scopes: entry.scopes, traceId, agentId: entry.agentId }, rate, entry }
  })
