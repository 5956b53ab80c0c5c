/**
 * The gateway's API keys, parsed from API_GATEWAY_API_KEYS: entries `<key>:<tenant>:<scope1>,<scope2>`
 * separated by `;`. Keys are kept only as SHA-256 digests and compared in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto"

export const SCOPES = [
  "wallets", "transactions", "policies", "agents", "protocols", "risk", "strategy", "treasury", "audit", "mcp", "all"
] as const
export type Scope = (typeof SCOPES)[number]

export interface ApiKeyEntry {
  /** A short, non-secret identifier for logs and rate limiting: the first 8 hex chars of the digest. */
  readonly keyId: string
  readonly digest: Buffer
  readonly tenant: string
  readonly scopes: ReadonlySet<Scope>
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
      if (parts.length !== 3 || parts.some((p) => p.trim() === "")) {
        throw new ApiKeyFormatError(`API_GATEWAY_API_KEYS entry ${index + 1} must look like <key>:<tenant>:<scopes>`)
      }
      const [key, tenant, scopeList] = parts.map((p) => p.trim())
      const scopes = scopeList.split(",").map((s) => s.trim())
      const unknown = scopes.filter((s) => !(SCOPES as ReadonlyArray<string>).includes(s))
      if (unknown.length > 0) {
        throw new ApiKeyFormatError(`API_GATEWAY_API_KEYS entry ${index + 1} has unknown scope(s): ${unknown.join(", ")}`)
      }
      const digest = digestOf(key)
      return { keyId: digest.toString("hex").slice(0, 8), digest, tenant, scopes: new Set(scopes as Array<Scope>) }
    })

/** Finds the entry for a presented key; every entry is compared so timing reveals nothing. */
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
