/**
 * The gateway's API keys, parsed from API_GATEWAY_API_KEYS: entries `<key>:<tenant>:<scope1>,<scope2>`
 * separated by `;`, optionally with a fourth field `agent=<agentId>` that binds the key to one agent
 * (an agent's credential: it executes and reads that agent's state, nothing else; docs/decisions/access.md).
 * Keys are kept only as SHA-256 digests and compared in constant time. These are the bootstrap keys; keys
 * issued over the API live in the database (src/keys/, reached through keyRing.ts).
 */
import { Effect, Redacted } from "effect"
import { createHash, timingSafeEqual } from "node:crypto"
import { API_SCOPES, type ApiScope } from "../../schemas/apiKey.js"

export const SCOPES = API_SCOPES
export type Scope = ApiScope

export interface ApiKeyEntry {
  /** A short, non-secret identifier for logs and rate limiting: the first 8 hex chars of the digest. */
  readonly keyId: string
  readonly digest: Buffer
  readonly tenant: string
  readonly scopes: ReadonlySet<Scope>
  /** The agent this key acts as, or null for an operator's key. */
  readonly agentId: string | null
  /** Issued over the API (a row in the database), not configured in API_GATEWAY_API_KEYS. */
  readonly issued: boolean
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** The optional fourth field: `agent=<uuid>`. An agent's key must name its tenant (an agent lives in one). */
const parseBinding = (field: string | undefined, tenant: string, position: number): string | null => {
  if (field === undefined) return null
  const match = /^agent=(.+)$/.exec(field)
  if (match === null || !UUID.test(match[1])) {
    throw new ApiKeyFormatError(`API_GATEWAY_API_KEYS entry ${position} has a fourth field that is not agent=<agent uuid>`)
  }
  if (tenant === "*") {
    throw new ApiKeyFormatError(`API_GATEWAY_API_KEYS entry ${position} binds an agent, so its tenant must be the agent's tenant, not *`)
  }
  return match[1].toLowerCase()
}

const digestOf = (key: string) => createHash("sha256").update(key, "utf8").digest()

export class ApiKeyFormatError extends Error {}

/** Parses the configuration; a malformed entry is an error naming its position, never the key. */
export const parseApiKeys = (raw: string): ReadonlyArray<ApiKeyEntry> =>
  raw
    .split(";")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry, index) => {
      const parts = entry.split(":")
      if ((parts.length !== 3 && parts.length !== 4) || parts.some((p) => p.trim() === "")) {
        throw new ApiKeyFormatError(`API_GATEWAY_API_KEYS entry ${index + 1} must look like <key>:<tenant>:<scopes>[:agent=<agentId>]`)
      }
      const [key, tenant, scopeList, binding] = parts.map((p) => p.trim())
      const scopes = scopeList.split(",").map((s) => s.trim())
      const unknown = scopes.filter((s) => !(SCOPES as ReadonlyArray<string>).includes(s))
      if (unknown.length > 0) {
        throw new ApiKeyFormatError(`API_GATEWAY_API_KEYS entry ${index + 1} has unknown scope(s): ${unknown.join(", ")}`)
      }
      const agentId = parseBinding(binding, tenant, index + 1)
      const digest = digestOf(key)
      return { keyId: digest.toString("hex").slice(0, 8), digest, tenant, scopes: new Set(scopes as Array<Scope>), agentId, issued: false }
    })

/** API_GATEWAY_API_KEYS parsed, as start-up and the gateway read it: a malformed entry fails naming its position. */
export const readApiKeys = (raw: Redacted.Redacted<string>) =>
  Effect.try({
    try: () => parseApiKeys(Redacted.value(raw)),
    catch: (error) => new Error(error instanceof Error ? error.message : "API_GATEWAY_API_KEYS is malformed")
  })

/** Finds the configured (bootstrap) entry for a presented key; every entry is compared so timing reveals nothing. */
export const findApiKey = (entries: ReadonlyArray<ApiKeyEntry>, presented: string): ApiKeyEntry | undefined => {
  const digest = digestOf(presented)
  let found: ApiKeyEntry | undefined
  for (const entry of entries) {
    if (timingSafeEqual(entry.digest, digest) && found === undefined) found = entry
  }
  return found
}

export const hasScope = (entry: { readonly scopes: ReadonlySet<Scope> }, scope: Scope) =>
  entry.scopes.has("all") || entry.scopes.has(scope)
