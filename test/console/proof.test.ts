/**
 * The console's in-browser proof check (console/src/proof.ts, WebCrypto) agrees with the service's
 * (src/pipeline/proof.ts) on docs/proof.md's known values and on a proof built by the service's code;
 * a changed intent is caught as a mismatch.
 */
import { describe, expect, it } from "vitest"
import { canonicalJson, recomputeProof, sha256Hex } from "../../console/src/proof.js"
import { buildExecutionProof, canonicalJson as serviceCanonicalJson } from "../../src/pipeline/proof.js"

describe("console proof check", () => {
  it("reproduces docs/proof.md's known values", async () => {
    expect(await sha256Hex("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    expect(canonicalJson({ lamports: 1, destination: "a" })).toBe('{"destination":"a","lamports":1}')
  })

  it("writes the same canonical JSON as the service for nested JSON values", () => {
    const value = { z: [1, "two", { b: null, a: true }], a: { "é": "\u0001\n\"", "10": 0.5, "9": -1e21 } }
    expect(canonicalJson(value)).toBe(serviceCanonicalJson(value))
  })

  it("verifies a proof the service built, and flags one whose intent changed", async () => {
    const replay = {
      txId: "00000000-0000-4000-8000-000000000001",
      request: { intent: { destination: "9amZTAb2RntwmzgS3gYBi24VKYAyNxXZ67PDctFwY5Nq", lamports: 1_000_000 } },
      policyDecision: { decision: "allow", reasons: [], riskTier: "low" },
      simulation: { ok: true, logs: ["Program 11111111111111111111111111111111 success"], unitsConsumed: 150 },
      history: []
    }
    const proof = buildExecutionProof({
      txId: replay.txId,
      walletId: "00000000-0000-4000-8000-000000000002",
      intent: replay.request.intent,
      policyDecision: replay.policyDecision,
      simulation: replay.simulation,
      signature: "5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW"
    })
    const checks = await recomputeProof({ ...replay, proof })
    expect(checks.map((check) => check.field)).toEqual(["intentHash", "policyHash", "simulationHash", "proofHash"])
    expect(checks.every((check) => check.stored === check.computed)).toBe(true)

    const tampered = await recomputeProof({ ...replay, request: { intent: { ...replay.request.intent, lamports: 2_000_000 } }, proof })
    expect(tampered.filter((check) => check.stored !== check.computed).map((check) => check.field)).toEqual(["intentHash", "proofHash"])
  })
})
