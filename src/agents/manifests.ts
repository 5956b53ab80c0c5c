/**
 * Capability manifests, pure: the canonical form that is signed, HMAC-SHA256 (hex) signing, and
 * verification of signature, binding and expiry with a constant-time comparison. Whether a nonce was
 * issued by us and not revoked is the store's half (manifestStore.ts).
 *
 * Canonical form (docs/decisions/agents.md): the UTF-8 bytes of
 *   JSON.stringify(["agent-manifest/v1", issuer, version, agentId, allowedIntents, allowedProtocols, issuedAt, expiresAt, nonce])
 * a JSON array in this fixed order, no whitespace, lists in the order the manifest carries them.
 */
import { Either, Schema } from "effect"
import { createHmac, timingSafeEqual } from "node:crypto"
import { CapabilityManifest } from "../../schemas/agent.js"

export const MANIFEST_ISSUER = "agent-custody"
export const MANIFEST_VERSION = "1"
const DOMAIN = "agent-manifest/v1"

export type UnsignedManifest = Omit<CapabilityManifest, "signature">

export const canonicalManifest = (manifest: UnsignedManifest): string =>
  JSON.stringify([
    DOMAIN,
    manifest.issuer,
    manifest.version,
    manifest.agentId,
    manifest.allowedIntents,
    manifest.allowedProtocols,
    manifest.issuedAt,
    manifest.expiresAt,
    manifest.nonce
  ])

export const signManifest = (manifest: UnsignedManifest, secret: string): CapabilityManifest => ({
  ...manifest,
  signature: createHmac("sha256", secret).update(canonicalManifest(manifest), "utf8").digest("hex")
})

const HEX_SHA256 = /^[0-9a-f]{64}$/

/** Constant-time: both sides are 32 bytes before timingSafeEqual runs. */
export const signatureMatches = (manifest: CapabilityManifest, secret: string): boolean => {
  if (!HEX_SHA256.test(manifest.signature)) return false
  const expected = createHmac("sha256", secret).update(canonicalManifest(manifest), "utf8").digest()
  return timingSafeEqual(expected, Buffer.from(manifest.signature, "hex"))
}

const decodeManifest = Schema.decodeUnknownEither(CapabilityManifest)

/**
 * Everything but the nonce's store lookup: shape, signature, binding to `agentId`, time window.
 * Left is the refusal reason (answered by verify, or a 403 at execute).
 */
export const checkManifest = (
  input: unknown,
  context: { readonly agentId: string; readonly secret: string; readonly nowMillis: number }
): Either.Either<CapabilityManifest, string> => {
  const decoded = decodeManifest(input, { onExcessProperty: "error" })
  if (Either.isLeft(decoded)) return Either.left("manifest is malformed")
  const manifest = decoded.right
  if (!signatureMatches(manifest, context.secret)) return Either.left("manifest signature is invalid")
  if (manifest.agentId !== context.agentId) return Either.left(`manifest is bound to another agent (${manifest.agentId})`)
  const expiresAt = Date.parse(manifest.expiresAt)
  const issuedAt = Date.parse(manifest.issuedAt)
  if (Number.isNaN(expiresAt) || Number.isNaN(issuedAt)) return Either.left("manifest is malformed")
  if (expiresAt <= context.nowMillis) return Either.left(`manifest expired at ${manifest.expiresAt}`)
  return Either.right(manifest)
}

/** Whether an intent falls within the manifest; Left names what is outside it. */
export const manifestCovers = (manifest: CapabilityManifest, type: string, protocol: string): Either.Either<true, string> => {
  if (!manifest.allowedIntents.some((allowed) => allowed === type)) return Either.left(`intent type '${type}' is outside the capability manifest`)
  if (!manifest.allowedProtocols.some((allowed) => allowed === protocol)) return Either.left(`protocol '${protocol}' is outside the capability manifest`)
  return Either.right(true)
}
