import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  buildExecutionProof,
  canonicalJson,
  CanonicalJsonError,
  sha256Hex,
  verifyExecutionProof
} from "../../src/pipeline/proof.js"

const intent = { destination: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin", lamports: 1_000_000 }
const policyDecision = { decision: "allow", reasons: ["within limits"], riskTier: "low" }
const simulation = { err: null, logs: ["Program 11111111111111111111111111111111 success"], unitsConsumed: 150 }
const signature = "5j7s6NiJS3JAkvgkoc18WVAsiSaci2pxB2A6ueCJP4tprA2TFg9wSyTLeYouxPBJEMzJinENTkpA52YStRW5Dia7"

const proofOf = () =>
  buildExecutionProof({
    txId: "6f1c3a52-6b61-4c0f-9f4e-2a1e9a3a8c11",
    walletId: "0d8a3c9e-3f5b-4a57-8d0e-1b9a8f7e6d5c",
    intent,
    policyDecision,
    simulation,
    signature,
    createdAt: new Date("2025-01-01T00:00:00.000Z")
  })

describe("canonicalJson", () => {
  it("sorts keys recursively and writes no whitespace", () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: "x" } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}')
  })
  it("writes bigint as a decimal string, drops undefined members, nulls undefined array items", () => {
    expect(canonicalJson({ a: 18446744073709551615n, b: undefined, c: [undefined, null] })).toBe(
      '{"a":"18446744073709551615","c":[null,null]}'
    )
  })
  it("writes Dates as ISO strings and escapes strings like JSON", () => {
    expect(canonicalJson({ t: new Date("2025-01-01T00:00:00Z"), s: 'a"\n\u00e9' })).toBe('{"s":"a\\"\\né","t":"2025-01-01T00:00:00.000Z"}')
  })
  it("refuses lossy values", () => {
    expect(() => canonicalJson({ x: Number.NaN })).toThrow(CanonicalJsonError)
    expect(() => canonicalJson({ x: Number.POSITIVE_INFINITY })).toThrow(CanonicalJsonError)
    expect(() => canonicalJson({ x: new Map() })).toThrow(/not a plain object/)
    expect(() => canonicalJson({ x: () => 1 })).toThrow(/function/)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(() => canonicalJson(cyclic)).toThrow(/cycle/)
  })
  it("allows the same object twice when it is not a cycle", () => {
    const shared = { a: 1 }
    expect(canonicalJson([shared, shared])).toBe('[{"a":1},{"a":1}]')
  })
  it("is independent of key insertion order (property)", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (record) => {
        const reversed = Object.fromEntries(Object.entries(record).reverse())
        return canonicalJson(record) === canonicalJson(reversed)
      })
    )
  })
  it("round-trips through JSON.parse to an equal value (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const normalized = JSON.parse(JSON.stringify(value)) as unknown
        expect(JSON.parse(canonicalJson(normalized))).toEqual(normalized)
      })
    )
  })
})

describe("execution proof", () => {
  it("hashes each part as SHA-256 of its canonical JSON and chains them with |", () => {
    const proof = proofOf()
    expect(proof.intentHash).toBe(sha256Hex(canonicalJson(intent)))
    expect(proof.policyHash).toBe(sha256Hex('{"decision":"allow","reasons":["within limits"],"riskTier":"low"}'))
    expect(proof.simulationHash).toBe(sha256Hex(canonicalJson(simulation)))
    expect(proof.proofHash).toBe(sha256Hex(`${proof.intentHash}|${proof.policyHash}|${proof.simulationHash}|${signature}`))
    expect(proof.createdAt).toBe("2025-01-01T00:00:00.000Z")
    expect(proof.agentId).toBeUndefined()
    expect(proof.intentHash).toMatch(/^[0-9a-f]{64}$/)
  })

  // Computed once outside this code base, by a 10-line node:crypto script over docs/proof.md's canonical
  // form (sorted keys, JSON.stringify strings and numbers, no whitespace): fixed, so a change to our
  // canonical JSON or hash chaining cannot move both sides of the check at once.
  it("matches fixed vectors computed independently of this module", () => {
    const proof = proofOf()
    expect(proof.intentHash).toBe("14c1c5b4ff74a145912f4b0e502ce52cfe8679ef40d04ea3f267337b9a6ca537")
    expect(proof.policyHash).toBe("7dcbc2423e5e755eaacc91d633b84061de73fad39c8aab51f64273b380e675b7")
    expect(proof.simulationHash).toBe("6694fb8f6bc5c76b87f3aee443a362522391f9beef1ada57ac352f18cc31f8b7")
    expect(proof.proofHash).toBe("87b2913a435191d03dc3bedf9319c9b24882053c400d0c31d8f0c70af4a41507")
    const failure = buildExecutionProof({ txId: "t", walletId: "w", intent, policyDecision: null, simulation: null })
    expect(failure.policyHash).toBe("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b")
    expect(failure.simulationHash).toBe("74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b")
    expect(failure.proofHash).toBe("4bfb570bbb678da7130816ee34796517275d3e7b937feaa2db60ee8bd14b78d3")
    // Keys sort by UTF-16 code units (RFC 8785): "A" < "z" < "é" < U+1F600 (a surrogate pair) < U+FFFD.
    const keys = { "\u00e9": 1, z: 2, A: 3, "\u{1F600}": 4, "\uFFFD": 5 }
    expect(canonicalJson(keys)).toBe('{"A":3,"z":2,"\u00e9":1,"\u{1F600}":4,"\uFFFD":5}')
    expect(sha256Hex(canonicalJson(keys))).toBe("5363e0af76b88e78fc7e7e5f4e65981189ad02387b0ebd543ff5d717bf478676")
  })

  it("pins one known value so other implementations can check themselves", () => {
    expect(sha256Hex(canonicalJson({ lamports: 1, destination: "a" }))).toBe(sha256Hex('{"destination":"a","lamports":1}'))
    expect(sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
  })

  it("uses an empty signature segment for a failure proof", () => {
    const proof = buildExecutionProof({ txId: "t", walletId: "w", intent, policyDecision: null, simulation: { err: "x" } })
    expect(proof.signature).toBeUndefined()
    expect(proof.policyHash).toBe(sha256Hex("null"))
    expect(proof.proofHash).toBe(sha256Hex(`${proof.intentHash}|${proof.policyHash}|${proof.simulationHash}|`))
  })

  it("verifies with the parts in any key order", () => {
    const proof = proofOf()
    const reordered = { lamports: 1_000_000, destination: intent.destination }
    expect(verifyExecutionProof(proof, { intent: reordered, policyDecision, simulation })).toEqual({ valid: true, mismatches: [] })
  })

  it("fails when anything changes", () => {
    const proof = proofOf()
    const subject = { intent, policyDecision, simulation }
    expect(verifyExecutionProof(proof, { ...subject, intent: { ...intent, lamports: 1_000_001 } }).mismatches).toEqual(["intentHash"])
    expect(verifyExecutionProof(proof, { ...subject, policyDecision: { ...policyDecision, decision: "deny" } }).mismatches).toEqual(["policyHash"])
    expect(verifyExecutionProof(proof, { ...subject, simulation: { ...simulation, unitsConsumed: 151 } }).mismatches).toEqual(["simulationHash"])
    expect(verifyExecutionProof({ ...proof, signature: "other" }, subject).mismatches).toEqual(["proofHash"])
    expect(verifyExecutionProof({ ...proof, signature: undefined }, subject).mismatches).toEqual(["proofHash"])
    expect(verifyExecutionProof({ ...proof, proofHash: "0".repeat(64) }, subject).valid).toBe(false)
    // a number where a string was hashed is a different intent
    expect(verifyExecutionProof(proof, { ...subject, intent: { ...intent, lamports: "1000000" } }).valid).toBe(false)
  })

  it("is invalid rather than throwing when the replayed subject cannot be serialized", () => {
    expect(verifyExecutionProof(proofOf(), { intent: { x: Number.NaN }, policyDecision, simulation }).valid).toBe(false)
  })
})
