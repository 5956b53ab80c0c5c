import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "vitest"
import { EvaluateBody, MigrateBody, Policy, PolicyCreateBody, ProtocolRiskConfigUpdate } from "../../schemas/policy.js"
import { formatParseError } from "../../src/policy/formatParseError.js"
import { WALLET } from "./fixtures.js"

const errorsOf = <A, I>(schema: Schema.Schema<A, I>, input: unknown): Array<string> => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all" })(input)
  return Either.isLeft(result) ? formatParseError(result.left) : []
}

describe("policy schemas", () => {
  it("a create body error names the rule and field", () => {
    const body = { walletId: WALLET, name: "p", rules: [{ type: "max_slippage", maxBps: 1 }, { type: "max_slippage", maxBps: 10_001 }] }
    expect(errorsOf(PolicyCreateBody, body)).toEqual(["rules[1].maxBps: must be between 0 and 10000"])
  })

  it("a create body defaults active to true and decodes lamports to bigint", () => {
    const body = Schema.decodeUnknownSync(PolicyCreateBody)({ walletId: WALLET, name: "p", rules: [{ type: "spending_limit", maxLamportsPerTx: 5 }] })
    expect(body.active).toBe(true)
    expect(body.rules[0]).toEqual({ type: "spending_limit", maxLamportsPerTx: 5n })
  })

  it.each([
    { name: "", field: "name" },
    { name: "x".repeat(129), field: "name" }
  ])("policy name length is 1-128 ($field)", ({ name, field }) => {
    expect(errorsOf(PolicyCreateBody, { walletId: WALLET, name, rules: [] })[0]).toMatch(new RegExp(`^${field}:`))
  })

  it("lamports round-trip as JSON integers", () => {
    const policy = {
      id: WALLET, walletId: WALLET, name: "p", version: 1, active: true,
      rules: [{ type: "spending_limit", maxLamportsPerDay: 5_000_000_000 }],
      createdAt: "2025-03-10T12:00:00.000Z", updatedAt: "2025-03-10T12:00:00.000Z"
    }
    expect(Schema.encodeSync(Policy)(Schema.decodeUnknownSync(Policy)(policy))).toEqual(policy)
  })

  it("the public evaluate body drops engine-internal fields", () => {
    const body = Schema.decodeUnknownSync(EvaluateBody)({ walletId: WALLET, type: "cpi_call", protocol: "escrow", riskTierHint: "low" })
    expect("riskTierHint" in body).toBe(false)
    expect(errorsOf(EvaluateBody, { walletId: WALLET, type: "swap" })).toEqual(["protocol: is missing"])
  })

  it("migrate defaults to safe and knows dry_run", () => {
    expect(Schema.decodeUnknownSync(MigrateBody)({ targetVersion: 2 })).toEqual({ targetVersion: 2, mode: "safe" })
    expect(Schema.decodeUnknownSync(MigrateBody)({ targetVersion: 2, mode: "dry_run" }).mode).toBe("dry_run")
    expect(errorsOf(MigrateBody, { targetVersion: 1.5, mode: "yolo" })).toHaveLength(2)
  })

  it("a risk config update takes only provided fields and null clears a bound", () => {
    expect(Schema.decodeUnknownSync(ProtocolRiskConfigUpdate)({ maxSlippageBps: null })).toEqual({ maxSlippageBps: null })
    expect(errorsOf(ProtocolRiskConfigUpdate, { maxSlipageBps: 5 })[0]).toMatch(/^maxSlipageBps: unknown field; did you mean maxSlippageBps\?/)
  })
})
