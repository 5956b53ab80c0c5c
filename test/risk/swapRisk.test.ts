/**
 * Protocol risk (spec table: slippage, allowed pools, allowed programs, pool concentration, quote age,
 * oracle: oracle.test.ts) and the policy rules max_slippage, token_allowlist, program_allowlist and protocol_allowlist on
 * real swaps through the pipeline: each denies at `policy` with its reason, and the swap is never signed.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { describe, expect, it } from "vitest"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { useServiceWithLedger } from "../support/harness.js"
import type { EndpointInput } from "../support/client.js"
import type { RiskApi } from "../../schemas/api/risk.js"
import type { PolicyRuleEncoded } from "../../schemas/policy.js"
import { readPool } from "../support/pools.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger({
  ledger: { amm: true },
  env: { AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"], CHAOS_ENABLED: "true" }
})

const SOL = NATIVE_MINT.toBase58()
const USDC = mintBySymbol("USDC").address.toBase58()
const intent = (amount: string, slippageBps = 50) => ({ inputMint: SOL, outputMint: USDC, amount, slippageBps })

const swap = async (walletId: string, protocol: string, body: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, { walletId, type: "swap", protocol, intent: body })
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body
}

const expectDenied = (settled: any, reason: string) => {
  expect(settled).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
  expect(settled.error).toContain(reason)
  expect(settled.data.signature ?? null).toBeNull()
}

const putRisk = (protocol: EndpointInput<typeof RiskApi.putProtocol>["params"]["protocol"], config: EndpointInput<typeof RiskApi.putProtocol>["body"]) => makeClient(env.service.baseUrl).risk.putProtocol({ params: { protocol }, body: config })
const CLEAR = { maxSlippageBps: null, allowedPools: [], allowedPrograms: [], maxPoolConcentrationBps: null, maxQuoteAgeSeconds: null, requireOracleForSwap: false }

describe("protocol risk on swaps", () => {
  it("denies each bound of the protocol risk config, and allows the swap once the bounds are lifted", async () => {
    const wallet = await createWallet(env.service.baseUrl, 5_000_000_000)
    expect((await putRisk("amm-one", { maxSlippageBps: 100 })).status).toBe(200)
    expectDenied(await swap(wallet.id, "amm-one", intent("100000000", 200)), "slippage 200 bps exceeds maxSlippageBps 100")

    const twoPool = (await readPool(env.ledger.rpcUrl, "amm-two", NATIVE_MINT, mintBySymbol("USDC").address)).address
    const onePool = (await readPool(env.ledger.rpcUrl, "amm-one", NATIVE_MINT, mintBySymbol("USDC").address)).address
    await putRisk("dex-aggregator", { allowedPools: [twoPool] })
    // 4 SOL routes through both pools: the amm-one leg is not allowed
    expectDenied(await swap(wallet.id, "dex-aggregator", intent("4000000000")), `pool ${onePool} is not allowed`)
    await putRisk("dex-aggregator", CLEAR)

    await putRisk("amm-one", { ...CLEAR, allowedPrograms: ["11111111111111111111111111111111"] })
    expectDenied(await swap(wallet.id, "amm-one", intent("100000000")), "not allowed")

    await putRisk("amm-one", { ...CLEAR, maxPoolConcentrationBps: 1000 })
    expectDenied(await swap(wallet.id, "amm-one", intent("1000000000")), "above maxPoolConcentrationBps 1000")

    // requireOracleForSwap and oracleDeviationBps on real swaps: test/protocols/oracle.test.ts

    // a fresh quote (taken at build) is within any age bound
    await putRisk("amm-one", { ...CLEAR, maxQuoteAgeSeconds: 30 })
    expect((await swap(wallet.id, "amm-one", intent("100000000"))).data.status).toBe("confirmed")
    await putRisk("amm-one", CLEAR)
  })

  it("denies a swap whose quote aged past maxQuoteAgeSeconds between its build and the decision", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2_000_000_000)
    await putRisk("amm-one", { ...CLEAR, maxQuoteAgeSeconds: 1 })
    // Chaos latency before the simulation (after the build took its quote) keeps the decision 2.5 s away.
    expect((await makeClient(env.service.baseUrl).chaos.update({ body: { enabled: true, latencyMs: 2_500, failureRates: {} } })).status).toBe(200)
    try {
      expectDenied(await swap(wallet.id, "amm-one", intent("100000000")), "above maxQuoteAgeSeconds 1")
    } finally {
      await makeClient(env.service.baseUrl).chaos.update({ body: { enabled: false, latencyMs: 0 } })
      await putRisk("amm-one", CLEAR)
    }
  })

  it("applies the policy rules max_slippage, token_allowlist (input and output mints), program_allowlist and protocol_allowlist", async () => {
    const wallet = await createWallet(env.service.baseUrl, 5_000_000_000)
    const policy = (rules: ReadonlyArray<PolicyRuleEncoded>) => makeClient(env.service.baseUrl).policies.create({ body: { walletId: wallet.id, name: `swap rules ${Math.random()}`, rules } })
    expect((await policy([{ type: "max_slippage", maxBps: 75 }])).status).toBe(201)
    expectDenied(await swap(wallet.id, "amm-two", intent("100000000", 80)), "slippage")

    const other = await createWallet(env.service.baseUrl, 5_000_000_000)
    const otherPolicy = (rules: ReadonlyArray<PolicyRuleEncoded>) => makeClient(env.service.baseUrl).policies.create({ body: { walletId: other.id, name: `rules ${Math.random()}`, rules } })
    expect((await otherPolicy([{ type: "protocol_allowlist", protocols: ["amm-two"] }])).status).toBe(201)
    expectDenied(await swap(other.id, "amm-one", intent("100000000")), "amm-one")
    expect((await swap(other.id, "amm-two", intent("100000000"))).data.status).toBe("confirmed")

    const third = await createWallet(env.service.baseUrl, 5_000_000_000)
    await makeClient(env.service.baseUrl).policies.create({ body: { walletId: third.id, name: "tokens", rules: [{ type: "token_allowlist", mints: [USDC] }] } })
    expectDenied(await swap(third.id, "amm-two", intent("100000000")), SOL)
    // the output mint is checked too: SOL listed, USDC not
    const fifth = await createWallet(env.service.baseUrl, 5_000_000_000)
    await makeClient(env.service.baseUrl).policies.create({ body: { walletId: fifth.id, name: "sol only", rules: [{ type: "token_allowlist", mints: [SOL] }] } })
    expectDenied(await swap(fifth.id, "amm-two", intent("100000000")), `token mint ${USDC} is not allowlisted`)

    const fourth = await createWallet(env.service.baseUrl, 5_000_000_000)
    await makeClient(env.service.baseUrl).policies.create({ body: {
      walletId: fourth.id, name: "programs", rules: [{ type: "program_allowlist", programIds: ["11111111111111111111111111111111", LOCAL_AMM_PROGRAM_IDS["amm-two"]] }]
    } })
    expectDenied(await swap(fourth.id, "amm-two", intent("100000000")), "Tokenkeg")
  })
})
