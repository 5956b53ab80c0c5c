import { Either } from "effect"
import { describe, expect, it } from "vitest"
import { checkCompatibility } from "../../src/protocols/compatibility.js"
import { migrateIntent } from "../../src/protocols/intentMigration.js"
import { findAdapter, protocolRegistry, type ProtocolAdapterInfo } from "../../src/protocols/registry.js"

const SOL = "So11111111111111111111111111111111111111112"
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
const swap090 = { inputMint: SOL, outputMint: USDC, amount: "1000000", slippageBps: 50 }

const right = <A, E>(e: Either.Either<A, E>): A => {
  if (Either.isLeft(e)) throw new Error(`expected Right, got ${String(e.left)}`)
  return e.right
}
const leftMessage = <A, E extends { message: string }>(e: Either.Either<A, E>): string => {
  if (Either.isRight(e)) throw new Error("expected Left")
  return e.left.message
}

describe("migrateIntent", () => {
  it("renames slippageBps to maxSlippageBps from 0.9.0 to 1.0.0 (the spec's example)", () => {
    const migrated = right(migrateIntent({ protocol: "dex-aggregator", intent: swap090, targetVersion: "1.0.0" }))
    expect(migrated).toEqual({
      protocol: "dex-aggregator",
      fromVersion: "0.9.0",
      targetVersion: "1.0.0",
      intent: { inputMint: SOL, outputMint: USDC, amount: "1000000", maxSlippageBps: 50 },
      changes: ["1.0.0: renamed slippageBps to maxSlippageBps"]
    })
    expect(swap090).toHaveProperty("slippageBps") // input untouched
  })

  it("is a no-op for an intent already at the target", () => {
    const current = { inputMint: SOL, outputMint: USDC, amount: "1", maxSlippageBps: 30 }
    const migrated = right(migrateIntent({ protocol: "amm-one", intent: current, targetVersion: "1.0.0" }))
    expect(migrated.fromVersion).toBe("1.0.0")
    expect(migrated.changes).toEqual([])
    expect(migrated.intent).toEqual(current)
  })

  it("honours an explicit fromVersion and a same-version target", () => {
    const migrated = right(migrateIntent({ protocol: "amm-two", intent: swap090, fromVersion: "0.9.0", targetVersion: "0.9.0" }))
    expect(migrated.intent).toEqual(swap090)
    expect(migrated.changes).toEqual([])
  })

  it("drops the old name when both carry the same value, refuses when they differ", () => {
    const same = right(migrateIntent({ protocol: "dex-aggregator", intent: { ...swap090, maxSlippageBps: 50 }, targetVersion: "1.0.0" }))
    expect(same.intent).not.toHaveProperty("slippageBps")
    expect(same.changes).toEqual(["1.0.0: removed slippageBps (same value as maxSlippageBps)"])
    expect(leftMessage(migrateIntent({ protocol: "dex-aggregator", intent: { ...swap090, maxSlippageBps: 10 }, targetVersion: "1.0.0" }))).toMatch(
      /both slippageBps and maxSlippageBps/
    )
  })

  it("refuses unknown versions and downgrades", () => {
    expect(leftMessage(migrateIntent({ protocol: "dex-aggregator", intent: swap090, targetVersion: "2.0.0" }))).toMatch(
      /unknown targetVersion 2.0.0 of dex-aggregator \(known: 0.9.0, 1.0.0\)/
    )
    expect(leftMessage(migrateIntent({ protocol: "dex-aggregator", intent: swap090, fromVersion: "0.1.0", targetVersion: "1.0.0" }))).toMatch(/unknown fromVersion/)
    expect(leftMessage(migrateIntent({ protocol: "dex-aggregator", intent: {}, fromVersion: "1.0.0", targetVersion: "0.9.0" }))).toMatch(/cannot migrate .* down/)
  })

  it("knows one version for protocols without history", () => {
    const migrated = right(migrateIntent({ protocol: "system-program", intent: { destination: SOL, lamports: 1 }, targetVersion: "1.0.0" }))
    expect(migrated.changes).toEqual([])
  })
})

describe("checkCompatibility", () => {
  const registry = protocolRegistry()
  const adapter = (p: string): ProtocolAdapterInfo => {
    const found = findAdapter(registry, p)
    if (!found) throw new Error(p)
    return found
  }

  it("accepts a complete intent of a capability", () => {
    expect(checkCompatibility(adapter("system-program"), { type: "transfer_sol", intent: { destination: SOL, lamports: 5 } })).toEqual({
      compatible: true,
      protocol: "system-program",
      version: "1.0.0",
      type: "transfer_sol",
      errors: [],
      warnings: []
    })
  })

  it("errors when the type is not a capability", () => {
    const r = checkCompatibility(adapter("system-program"), { type: "swap", intent: {} })
    expect(r.compatible).toBe(false)
    expect(r.errors[0]).toMatch(/type swap is not a capability of system-program 1.0.0/)
  })

  it("errors on missing, mistyped and unknown fields", () => {
    const r = checkCompatibility(adapter("spl-token"), { type: "transfer_spl", intent: { destination: "0OIl", amount: -1, memo: "x" } })
    expect(r.compatible).toBe(false)
    expect(r.errors).toEqual([
      "intent.destination must be a base58 address",
      "intent.mint is required",
      "intent.amount must be a non-negative integer (number or decimal string)",
      "intent.memo is not a field of transfer_spl on spl-token 1.0.0: unknown fields are refused"
    ])
    expect(r.warnings).toEqual([])
  })

  it("accepts the legacy slippageBps with a warning that points at migrate-intent", () => {
    const r = checkCompatibility(adapter("dex-aggregator"), { type: "swap", intent: swap090 })
    expect(r.compatible).toBe(true)
    expect(r.warnings).toContain(
      "intent.slippageBps is the pre-1.0.0 name of maxSlippageBps; migrate with POST /api/v1/protocols/dex-aggregator/migrate-intent"
    )
    // the aggregator builds swaps now: no "no transaction builder" warning
    expect(r.warnings.some((w) => /no transaction builder yet/.test(w))).toBe(false)
  })

  it("errors when neither slippage name is present", () => {
    const r = checkCompatibility(adapter("amm-one"), { type: "swap", intent: { inputMint: SOL, outputMint: USDC, amount: "1" } })
    expect(r.errors).toEqual(["intent.maxSlippageBps is required"])
  })

  it("checks escrow shapes", () => {
    const r = checkCompatibility(adapter("escrow"), { type: "resolve_dispute", intent: { escrowNumericId: "7", creator: SOL, counterparty: USDC, decision: "maybe" } })
    expect(r.errors).toEqual(["intent.decision must be one of: release, refund"])
  })
})
