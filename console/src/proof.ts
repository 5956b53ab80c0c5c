/**
 * The execution proof recomputed in the browser (docs/proof.md): canonical JSON (RFC 8785 for JSON
 * values) hashed with WebCrypto SHA-256, compared with the proof the service stored.
 */
import type { Replay } from "./types.js"

export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== "object") {
    if (typeof value === "number" && !Number.isFinite(value)) throw new Error("canonical JSON refuses a non-finite number")
    return JSON.stringify(value)
  }
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : canonicalJson(item))).join(",")}]`
  const members = Object.keys(value)
    .sort()
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
  return `{${members.join(",")}}`
}

export const sha256Hex = async (text: string): Promise<string> => {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text))
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, "0")).join("")
}

export interface ProofCheck {
  readonly field: "intentHash" | "policyHash" | "simulationHash" | "proofHash"
  readonly stored: string
  readonly computed: string
}

/** Each stored hash beside the one computed here from the replay's values. */
export const recomputeProof = async (replay: Replay): Promise<ReadonlyArray<ProofCheck>> => {
  const proof = replay.proof
  if (proof === null) return []
  const intentHash = await sha256Hex(canonicalJson(replay.request.intent))
  const policyHash = await sha256Hex(canonicalJson(replay.policyDecision ?? null))
  const simulationHash = await sha256Hex(canonicalJson(replay.simulation ?? null))
  const proofHash = await sha256Hex([intentHash, policyHash, simulationHash, proof.signature ?? ""].join("|"))
  return [
    { field: "intentHash", stored: proof.intentHash, computed: intentHash },
    { field: "policyHash", stored: proof.policyHash, computed: policyHash },
    { field: "simulationHash", stored: proof.simulationHash, computed: simulationHash },
    { field: "proofHash", stored: proof.proofHash, computed: proofHash }
  ]
}
