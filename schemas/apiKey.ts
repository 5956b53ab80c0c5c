/**
 * Gateway API keys issued as data (issue 36, [n19]; docs/decisions/access.md "Issued keys"): the scopes,
 * the bodies of issue / rotate / revoke, and a key as listed. A key's secret appears in exactly one answer
 * (`IssuedApiKey`, at issue and rotate); a listed key shows its public prefix only. Bodies refuse unknown
 * fields (a misspelt `expiresAt` must never issue a key that never expires).
 */
import * as Schema from "effect/Schema"
import { IdempotencyKey, Label, PaginationQuery, Timestamp, Uuid } from "./common.js"
import { strict } from "./strict.js"

/** The spec's scopes, plus `webhooks` ([n21]) and `keys` (this API). */
export const API_SCOPES = [
  "wallets", "transactions", "policies", "agents", "protocols", "risk", "strategy", "treasury", "audit", "mcp", "webhooks", "keys", "all"
] as const
export type ApiScope = (typeof API_SCOPES)[number]

/** What an agent's own key may use when its create asks for one without naming scopes. */
export const DEFAULT_AGENT_KEY_SCOPES: ReadonlyArray<ApiScope> = ["agents", "transactions", "mcp"]


export const ApiScopeSchema = Schema.Literal(...API_SCOPES).annotations({
  message: () => ({ message: `must be one of ${API_SCOPES.join(", ")}`, override: true })
})

export const ApiScopes = Schema.Array(ApiScopeSchema).pipe(
  Schema.minItems(1, { message: () => "must name at least one scope" }),
  Schema.maxItems(API_SCOPES.length, { message: () => `must name at most ${API_SCOPES.length} scopes` })
)

/** A tenant id, or `*` (every tenant). */
export const ApiKeyTenant = Schema.String.pipe(
  Schema.filter((value) => value === "*" || /^[A-Za-z0-9][A-Za-z0-9._@-]{0,127}$/.test(value), {
    message: () => "must be * or a tenant id of 1-128 letters, digits, '.', '_', '@' or '-'"
  })
)

/** An ISO 8601 instant with a time zone (`2030-01-01T00:00:00Z`); whether it is in the future is checked on use. */
export const Instant = Schema.String.pipe(
  Schema.filter((value) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/.test(value) && !Number.isNaN(Date.parse(value)), {
    message: () => "must be an ISO 8601 date and time with a zone, e.g. 2030-01-01T00:00:00Z"
  })
)

const Reason = Schema.String.pipe(Schema.maxLength(256, { message: () => "must be at most 256 characters" }))

export const IssueApiKeyBody = Schema.Struct({
  /** Default: the tenant the caller acts for when its key is bound to one (or x-tenant-id names one). */
  tenant: Schema.optionalWith(ApiKeyTenant, { exact: true }),
  scopes: ApiScopes,
  /** Binds the key to one agent of its tenant: it executes and reads that agent's state only. */
  agentId: Schema.optionalWith(Uuid, { exact: true }),
  expiresAt: Schema.optionalWith(Instant, { exact: true }),
  label: Schema.optionalWith(Label, { exact: true }),
  /** An issue sent again with the same key (after a lost answer) makes no second key: a 409 names the first. */
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true })
}).pipe(strict)
export type IssueApiKeyBody = typeof IssueApiKeyBody.Type

/** At most 30 days of overlap: a rotation is a hand-over, not a second key. */
export const MAX_GRACE_SECONDS = 30 * 24 * 3600

export const RotateApiKeyBody = Schema.Struct({
  /** How long the old secret keeps working (0: it stops now). */
  graceSeconds: Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(0, MAX_GRACE_SECONDS, { message: () => `must be between 0 and ${MAX_GRACE_SECONDS} (30 days)` })
  ),
  /** The new key's expiry (default: none). */
  expiresAt: Schema.optionalWith(Instant, { exact: true }),
  label: Schema.optionalWith(Label, { exact: true })
}).pipe(strict)
export type RotateApiKeyBody = typeof RotateApiKeyBody.Type

export const RevokeApiKeyBody = Schema.Struct({ reason: Schema.optionalWith(Reason, { exact: true }) }).pipe(strict)
export type RevokeApiKeyBody = typeof RevokeApiKeyBody.Type

export const API_KEY_STATUSES = ["active", "expired", "revoked"] as const

export const ApiKeysQuery = Schema.Struct({
  ...PaginationQuery.fields,
  status: Schema.optionalWith(Schema.Literal(...API_KEY_STATUSES), { exact: true }),
  agentId: Schema.optionalWith(Uuid, { exact: true })
}).pipe(strict)
export type ApiKeysQuery = typeof ApiKeysQuery.Type

export const ApiKeyIdParams = Schema.Struct({
  keyId: Schema.String.pipe(Schema.pattern(/^[0-9a-f]{16}$/, { message: () => "must be a key id (16 hexadecimal digits)" }))
})

/** A key as listed: never its secret or hash. */
export const ApiKey = Schema.Struct({
  id: Schema.String,
  /** The key's public beginning, `agck_<id>`: what a secret scanner or a log shows of it. */
  prefix: Schema.String,
  tenantId: Schema.String,
  scopes: Schema.Array(Schema.String),
  agentId: Schema.NullOr(Uuid),
  label: Schema.NullOr(Schema.String),
  status: Schema.Literal(...API_KEY_STATUSES),
  createdAt: Timestamp,
  /** The key id of the credential that issued it (`anonymous` without authentication). */
  createdBy: Schema.String,
  expiresAt: Schema.NullOr(Timestamp),
  revokedAt: Schema.NullOr(Timestamp),
  revokedBy: Schema.NullOr(Schema.String),
  /** Last successful use, written in batches (up to a few seconds late). */
  lastUsedAt: Schema.NullOr(Timestamp),
  rotatedFrom: Schema.NullOr(Schema.String),
  replacedBy: Schema.NullOr(Schema.String)
})
export type ApiKey = typeof ApiKey.Type

/** The answer of issue and rotate: the key with its secret, shown this once. */
export const IssuedApiKey = Schema.Struct({
  ...ApiKey.fields,
  /** Send it as `x-api-key` (or `Authorization: Bearer`). Stored only as a hash: it cannot be shown again. */
  secret: Schema.String
})
export type IssuedApiKey = typeof IssuedApiKey.Type

export const RotatedApiKey = Schema.Struct({ key: IssuedApiKey, previous: ApiKey })

/** The agent create's optional request for the agent's own key. */
export const AgentKeyRequest = Schema.Struct({
  scopes: Schema.optionalWith(ApiScopes, { exact: true }),
  expiresAt: Schema.optionalWith(Instant, { exact: true }),
  label: Schema.optionalWith(Label, { exact: true })
}).pipe(strict)
export type AgentKeyRequest = typeof AgentKeyRequest.Type
