import { describe, expect, it } from "vitest"
import { protocolRiskChecks, type IntentRiskFacts, type ProtocolRiskLimits } from "../../src/policy/protocolRiskChecks.js"

const POOL = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"
const OTHER_POOL = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"
const PROGRAM = "11111111111111111111111111111111"
const OTHER_PROGRAM = "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA"

const config: ProtocolRiskLimits = {
  maxSlippageBps: 100,
  allowedPools: [POOL],
  allowedPrograms: [PROGRAM],
  maxPoolConcentrationBps: 1_000,
  maxQuoteAgeSeconds: 30,
  oracleDeviationBps: 150,
  requireOracleForSwap: false
}
const good: IntentRiskFacts = {
  type: "swap",
  slippageBps: 100,
  pool: POOL,
  programIds: [PROGRAM],
  amountLamports: 100n,
  preBalanceLamports: 1_000n,
  quoteAgeSeconds: 30,
  oracleDeviationBps: 150
}
const bad: IntentRiskFacts = {
  type: "swap",
  slippageBps: 101,
  pool: OTHER_POOL,
  programIds: [OTHER_PROGRAM],
  amountLamports: 101n,
  preBalanceLamports: 1_000n,
  quoteAgeSeconds: 31,
  oracleDeviationBps: 151
}

describe("protocol risk checks", () => {
  it("passes with every fact at its bound", () => {
    expect(protocolRiskChecks(config, good)).toEqual({ decision: "allow", reasons: [] })
  })

  it("reports failures in the spec's order: slippage, pools, programs, concentration, quote age, oracle", () => {
    const result = protocolRiskChecks(config, bad)
    expect(result.decision).toBe("deny")
    const order = ["slippage", "pool", "program", "balance", "quote", "oracle"]
    expect(result.reasons).toHaveLength(order.length)
    result.reasons.forEach((reason, i) => expect(reason).toContain(order[i]))
  })

  it.each([
    { name: "slippage", facts: { slippageBps: 101 }, decision: "deny" },
    { name: "pool", facts: { pool: OTHER_POOL }, decision: "deny" },
    { name: "program", facts: { programIds: [PROGRAM, OTHER_PROGRAM] }, decision: "deny" },
    { name: "concentration 1001 bps", facts: { amountLamports: 1_001n, preBalanceLamports: 10_000n }, decision: "deny" },
    { name: "concentration 1000 bps", facts: { amountLamports: 1_000n, preBalanceLamports: 10_000n }, decision: "allow" },
    { name: "quote age", facts: { quoteAgeSeconds: 31 }, decision: "deny" },
    { name: "oracle deviation alone", facts: { oracleDeviationBps: 151 }, decision: "require_approval" },
    { name: "oracle deviation with a deny", facts: { oracleDeviationBps: 151, slippageBps: 101 }, decision: "deny" }
  ] as const)("$name -> $decision", ({ facts, decision }) => {
    expect(protocolRiskChecks(config, { ...good, ...facts }).decision).toBe(decision)
  })

  it("skips unconfigured checks (omitted bounds, empty lists)", () => {
    expect(protocolRiskChecks({ allowedPools: [], allowedPrograms: [] }, bad).decision).toBe("allow")
  })

  it("fails closed when a configured check lacks its fact", () => {
    expect(protocolRiskChecks(config, { ...good, pool: undefined }).decision).toBe("deny")
    expect(protocolRiskChecks(config, { ...good, programIds: undefined }).decision).toBe("deny")
    expect(protocolRiskChecks(config, { ...good, preBalanceLamports: undefined }).decision).toBe("deny")
    expect(protocolRiskChecks(config, { ...good, quoteAgeSeconds: undefined }).decision).toBe("deny")
    expect(protocolRiskChecks(config, { ...good, slippageBps: undefined }).decision).toBe("deny")
  })

  it("slippage and quote age do not apply to non-swap intents", () => {
    const transfer: IntentRiskFacts = { ...good, type: "transfer_sol", slippageBps: undefined, quoteAgeSeconds: undefined }
    expect(protocolRiskChecks(config, transfer).decision).toBe("allow")
  })

  it("requireOracleForSwap denies a swap without an oracle price", () => {
    const strict = { ...config, requireOracleForSwap: true }
    expect(protocolRiskChecks(strict, { ...good, oracleDeviationBps: undefined }).decision).toBe("deny")
    expect(protocolRiskChecks(strict, { ...good, type: "stake", oracleDeviationBps: undefined }).decision).toBe("allow")
  })
})
