import { createHash } from "node:crypto"

/**
 * Execution proof (spec "Execution proof"); the byte-exact rules are in docs/proof.md so
 * anyone can recompute a proof from GET /transactions/<id>/replay.
 */

export class CanonicalJsonError extends Error {
  override readonly name = "CanonicalJsonError"
}

const isPlainObject = (value: object): boolean => {
  const proto = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

/**
 * Canonical JSON: object keys sorted by UTF-16 code units (JavaScript's default sort, as
 * RFC 8785), no whitespace, strings and finite numbers as JSON.stringify writes them,
 * bigint as a decimal string, undefined object members dropped, undefined array items
 * written as null, Date as its ISO string. Anything else (NaN, Infinity, functions,
 * symbols, Map, Set, class instances, cycles) throws: a proof never hashes a lossy value.
 */
export const canonicalJson = (value: unknown): string => write(value, new Set<object>(), "$")

const write = (value: unknown, seen: Set<object>, path: string): string => {
  switch (typeof value) {
    case "string":
      return JSON.stringify(value)
    case "boolean":
      return value ? "true" : "false"
    case "bigint":
      return JSON.stringify(value.toString())
    case "number":
      if (!Number.isFinite(value)) throw new CanonicalJsonError(`${path}: non-finite number ${value}`)
      return JSON.stringify(value)
    case "object": {
      if (value === null) return "null"
      if (value instanceof Date) {
        if (Number.isNaN(value.getTime())) throw new CanonicalJsonError(`${path}: invalid Date`)
        return JSON.stringify(value.toISOString())
      }
      if (seen.has(value)) throw new CanonicalJsonError(`${path}: cycle`)
      seen.add(value)
      try {
        if (Array.isArray(value)) {
          const items = value.map((item, i) => (item === undefined ? "null" : write(item, seen, `${path}[${i}]`)))
          return `[${items.join(",")}]`
        }
        if (!isPlainObject(value)) throw new CanonicalJsonError(`${path}: not a plain object`)
        const record = value as Record<string, unknown>
        const members = Object.keys(record)
          .sort()
          .filter((key) => record[key] !== undefined)
          .map((key) => `${JSON.stringify(key)}:${write(record[key], seen, `${path}.${key}`)}`)
        return `{${members.join(",")}}`
      } finally {
        seen.delete(value)
      }
    }
    default:
      throw new CanonicalJsonError(`${path}: cannot serialize a ${typeof value}`)
  }
}

/** Lowercase hex SHA-256 of a UTF-8 string or of bytes. */
export const sha256Hex = (input: string | Uint8Array): string =>
  createHash("sha256").update(input).digest("hex")

/** SHA-256 of the canonical JSON of a value. */
export const hashCanonical = (value: unknown): string => sha256Hex(canonicalJson(value))

/** sha256(intentHash | policyHash | simulationHash | signature-or-empty). */
export const proofHashOf = (parts: {
  readonly intentHash: string
  readonly policyHash: string
  readonly simulationHash: string
  readonly signature?: string | null
}): string => sha256Hex([parts.intentHash, parts.policyHash, parts.simulationHash, parts.signature ?? ""].join("|"))

export interface ExecutionProof {
  readonly txId: string
  readonly walletId: string
  readonly agentId?: string
  readonly intentHash: string
  readonly policyHash: string
  readonly simulationHash: string
  readonly signature?: string
  readonly proofHash: string
  readonly createdAt: string
}

/** What the proof commits to; the same three values `/replay` returns. */
export interface ProofSubject {
  /** the intent as stored and replayed (wire form: amounts as the client sent them) */
  readonly intent: unknown
  /** the policy decision, or null when the transaction failed before policy */
  readonly policyDecision: unknown
  /** the simulation result as stored, or null when it failed before simulation */
  readonly simulation: unknown
}

export interface BuildExecutionProofInput extends ProofSubject {
  readonly txId: string
  readonly walletId: string
  readonly agentId?: string | null
  readonly signature?: string | null
  readonly createdAt?: Date
}

export const buildExecutionProof = (input: BuildExecutionProofInput): ExecutionProof => {
  const intentHash = hashCanonical(input.intent)
  const policyHash = hashCanonical(input.policyDecision ?? null)
  const simulationHash = hashCanonical(input.simulation ?? null)
  const signature = input.signature ?? undefined
  return {
    txId: input.txId,
    walletId: input.walletId,
    ...(input.agentId ? { agentId: input.agentId } : {}),
    intentHash,
    policyHash,
    simulationHash,
    ...(signature ? { signature } : {}),
    proofHash: proofHashOf({ intentHash, policyHash, simulationHash, signature }),
    createdAt: (input.createdAt ?? new Date()).toISOString()
  }
}

export interface ProofVerification {
  readonly valid: boolean
  /** names of the proof fields that do not match: intentHash, policyHash, simulationHash, proofHash */
  readonly mismatches: ReadonlyArray<"intentHash" | "policyHash" | "simulationHash" | "proofHash">
}

/** Recomputes every hash from the replayed subject; valid only when all four match. */
export const verifyExecutionProof = (
  proof: Pick<ExecutionProof, "intentHash" | "policyHash" | "simulationHash" | "proofHash" | "signature">,
  subject: ProofSubject
): ProofVerification => {
  const mismatches: Array<ProofVerification["mismatches"][number]> = []
  let recomputed: { intentHash: string; policyHash: string; simulationHash: string }
  try {
    recomputed = {
      intentHash: hashCanonical(subject.intent),
      policyHash: hashCanonical(subject.policyDecision ?? null),
      simulationHash: hashCanonical(subject.simulation ?? null)
    }
  } catch {
    return { valid: false, mismatches: ["intentHash", "policyHash", "simulationHash", "proofHash"] }
  }
  if (recomputed.intentHash !== proof.intentHash) mismatches.push("intentHash")
  if (recomputed.policyHash !== proof.policyHash) mismatches.push("policyHash")
  if (recomputed.simulationHash !== proof.simulationHash) mismatches.push("simulationHash")
  // proofHash is checked over the proof's own component hashes, so a tampered proofHash shows alone
  if (proofHashOf({ ...proof }) !== proof.proofHash) mismatches.push("proofHash")
  return { valid: mismatches.length === 0, mismatches }
}
