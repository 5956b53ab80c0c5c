/** fast-check generators of stored rules (as JSON), requests and state snapshots. */
import fc from "fast-check"
import type { EvaluateRequest } from "../../schemas/policy.js"
import type { EvaluationState } from "../../src/policy/evaluationState.js"
import { ADDR_A, ADDR_B, ADDR_C, AGENT, SYSTEM_PROGRAM, TOKEN_PROGRAM, USDC_MINT, WALLET } from "./fixtures.js"

const addresses = [ADDR_A, ADDR_B, ADDR_C]
const programs = [SYSTEM_PROGRAM, TOKEN_PROGRAM]
const mints = [USDC_MINT, ADDR_C]
const protocols = ["system-program", "spl-token", "dex-aggregator", "amm-one"]
const types = ["transfer_sol", "transfer_spl", "swap", "stake", "cpi_call", "lend_supply"]
const windows = [60, 3600]

const lamports = fc.integer({ min: 0, max: 5_000 })
const bps = fc.integer({ min: 0, max: 10_000 })
const hour = fc.integer({ min: 0, max: 23 })
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })
const withoutUndefined = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined))

export const ruleJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ maxLamportsPerTx: opt(lamports), maxLamportsPerDay: opt(lamports), requireApprovalAboveLamports: opt(lamports) })
    .map((r) => ({ type: "spending_limit", ...withoutUndefined(r) })),
  fc.subarray(addresses).map((a) => ({ type: "address_allowlist", addresses: a })),
  fc.subarray(addresses).map((a) => ({ type: "address_blocklist", addresses: a })),
  fc.subarray(programs).map((p) => ({ type: "program_allowlist", programIds: p })),
  fc.subarray(mints).map((m) => ({ type: "token_allowlist", mints: m })),
  fc.subarray(protocols).map((p) => ({ type: "protocol_allowlist", protocols: p })),
  fc.record({ maxTx: fc.integer({ min: 0, max: 5 }), windowSeconds: fc.constantFrom(...windows) }).map((r) => ({ type: "rate_limit", ...r })),
  fc.record({ startHourUtc: hour, endHourUtc: hour }).map((r) => ({ type: "time_window", ...r })),
  bps.map((maxBps) => ({ type: "max_slippage", maxBps })),
  fc.record({
    protocol: fc.constantFrom(...protocols),
    maxSlippageBps: opt(bps),
    maxPoolConcentrationBps: opt(bps),
    allowedPools: opt(fc.subarray(addresses)),
    allowedPrograms: opt(fc.subarray(programs)),
    oracleDeviationBps: opt(bps)
  }).map((r) => ({ type: "protocol_risk", ...withoutUndefined(r) })),
  fc.record({
    maxDrawdownLamports: opt(lamports),
    maxDailyLossLamports: opt(lamports),
    maxExposureBpsPerToken: opt(bps),
    maxExposureBpsPerProtocol: opt(bps)
  }).map((r) => ({ type: "portfolio_risk", ...withoutUndefined(r) })),
  // malformed stored rules
  fc.constantFrom<unknown>({ type: "nope" }, { type: "max_slippage" }, null, 42, { type: "rate_limit", maxTx: -1, windowSeconds: 60 })
)

export const rulesJson = fc.array(ruleJson, { maxLength: 6 })

export const evaluateRequest: fc.Arbitrary<EvaluateRequest> = fc
  .record({
    type: fc.constantFrom(...types),
    protocol: fc.constantFrom(...protocols),
    destination: opt(fc.constantFrom(...addresses)),
    tokenMint: opt(fc.constantFrom(...mints)),
    amountLamports: opt(lamports.map(BigInt)),
    programIds: opt(fc.subarray(programs)),
    slippageBps: opt(bps),
    agentId: opt(fc.constant(AGENT)),
    timestamp: fc.integer({ min: 0, max: 3 * 86_400 - 1 }).map((s) => new Date(Date.UTC(2025, 2, 10) + s * 1000))
  })
  .map((r) => ({ walletId: WALLET, ...withoutUndefined(r) }) as EvaluateRequest)

export const evaluationState: fc.Arbitrary<EvaluationState> = fc.record({
  now: fc.constant(new Date(Date.UTC(2025, 2, 10, 12))),
  dailySpentLamports: opt(lamports.map(BigInt)),
  // Consistent counts: a longer window holds at least the events of a shorter one.
  rateCounts: fc.tuple(fc.nat(6), fc.nat(6)).map(([a, b]) => new Map([[60, a], [3600, a + b]])),
  portfolio: opt(
    fc.record({
      drawdownLamports: lamports.map(BigInt),
      dailyLossLamports: lamports.map(BigInt),
      tokenExposureBps: fc.dictionary(fc.constantFrom(...mints), bps),
      protocolExposureBps: fc.dictionary(fc.constantFrom(...protocols), bps)
    })
  ),
  transaction: opt(
    fc.record({
      pool: opt(fc.constantFrom(...addresses)),
      preBalanceLamports: opt(lamports.map(BigInt)),
      oracleDeviationBps: opt(bps)
    })
  )
})
