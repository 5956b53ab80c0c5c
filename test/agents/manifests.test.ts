/**
 * Manifest signing, pure: the canonical form is stable, a manifest verifies only with the secret it was
 * signed with, bound to its agent, before it expires; changing any field or the signature breaks it.
 */
import { Either } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { canonicalManifest, checkManifest, manifestCovers, signManifest, type UnsignedManifest } from "../../src/agents/manifests.js"

const AGENT = "8f1d6a52-2f6e-4c71-9f59-3a4f7d0c2b11"
const SECRET = "manifest-secret"
const NOW = Date.parse("2025-01-01T00:00:00.000Z")

const unsigned: UnsignedManifest = {
  issuer: "agent-custody",
  version: "1",
  agentId: AGENT,
  allowedIntents: ["transfer_sol", "query_balance"],
  allowedProtocols: ["system-program"],
  issuedAt: "2025-01-01T00:00:00.000Z",
  expiresAt: "2025-01-01T01:00:00.000Z",
  nonce: "00112233445566778899aabbccddeeff"
}

const check = (manifest: unknown, overrides: Partial<{ agentId: string; secret: string; nowMillis: number }> = {}) =>
  checkManifest(manifest, { agentId: AGENT, secret: SECRET, nowMillis: NOW + 1_000, ...overrides })

describe("capability manifests", () => {
  it("signs the documented canonical form with HMAC-SHA256 hex", () => {
    expect(canonicalManifest(unsigned)).toBe(
      '["agent-manifest/v1","agent-custody","1","8f1d6a52-2f6e-4c71-9f59-3a4f7d0c2b11",["transfer_sol","query_balance"],["system-program"],' +
        '"2025-01-01T00:00:00.000Z","2025-01-01T01:00:00.000Z","00112233445566778899aabbccddeeff"]'
    )
    const signed = signManifest(unsigned, SECRET)
    expect(signed.signature).toMatch(/^[0-9a-f]{64}$/)
    expect(Either.isRight(check(signed))).toBe(true)
  })

  it("refuses another secret, another agent, an expired manifest and a malformed one", () => {
    const signed = signManifest(unsigned, SECRET)
    expect(check(signed, { secret: "rotated" })).toEqual(Either.left("manifest signature is invalid"))
    expect(Either.getLeft(check(signed, { agentId: "6b0e9f1c-0d8e-4f0b-8a57-1f1f4c0a6a22" }))._tag).toBe("Some")
    expect(check(signed, { nowMillis: Date.parse(unsigned.expiresAt) })).toEqual(Either.left("manifest expired at 2025-01-01T01:00:00.000Z"))
    expect(check({ ...signed, signature: undefined })).toEqual(Either.left("manifest is malformed"))
    expect(check("malformed")).toEqual(Either.left("manifest is malformed"))
  })

  it("breaks when any field or the signature changes", () => {
    const signed = signManifest(unsigned, SECRET)
    const fields = ["issuer", "version", "nonce", "issuedAt", "expiresAt"] as const
    fc.assert(
      fc.property(fc.constantFrom(...fields), fc.string({ minLength: 1, maxLength: 8 }), (field, suffix) => {
        const tampered = { ...signed, [field]: signed[field] + suffix }
        expect(Either.isLeft(check(tampered))).toBe(true)
      })
    )
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 63 }), fc.constantFrom(..."0123456789abcdef"), (index, digit) => {
        fc.pre(signed.signature[index] !== digit)
        const signature = signed.signature.slice(0, index) + digit + signed.signature.slice(index + 1)
        expect(check({ ...signed, signature })).toEqual(Either.left("manifest signature is invalid"))
      })
    )
    expect(Either.isLeft(check({ ...signed, allowedIntents: [...signed.allowedIntents, "swap"] }))).toBe(true)
    expect(Either.isLeft(check({ ...signed, allowedProtocols: ["spl-token"] }))).toBe(true)
  })

  it("covers only its intents and protocols", () => {
    const signed = signManifest(unsigned, SECRET)
    expect(Either.isRight(manifestCovers(signed, "transfer_sol", "system-program"))).toBe(true)
    expect(manifestCovers(signed, "swap", "system-program")).toEqual(Either.left("intent type 'swap' is outside the capability manifest"))
    expect(manifestCovers(signed, "transfer_sol", "spl-token")).toEqual(Either.left("protocol 'spl-token' is outside the capability manifest"))
  })
})
