/**
 * Swaps through the pipeline on the seeded local pools (as `npm start` seeds them): on amm-one, on amm-two
 * and through the dex-aggregator (a split route when it pays more). The wallet receives exactly what the
 * AMM's arithmetic gives on the pools as they were; a swap whose minimum no longer holds because the pool
 * moved while it waited for approval fails on chain with the program's error.
 */
import { NATIVE_MINT } from "@solana/spl-token"
import { Connection } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { LOCAL_AMM_PROGRAM_IDS } from "../../src/protocols/amm/ammIds.js"
import { mintBySymbol } from "../../src/protocols/amm/localPools.js"
import { swapOutput } from "../../src/protocols/amm/math.js"
import { bestRoute } from "../../src/protocols/amm/quote.js"
import { useServiceWithLedger } from "../support/harness.js"
import { readPool, tokenBalance } from "../support/pools.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger({
  ledger: { amm: true },
  env: { AMM_ONE_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-one"], AMM_TWO_PROGRAM_ID: LOCAL_AMM_PROGRAM_IDS["amm-two"] }
})

const SOL = NATIVE_MINT
const USDC = mintBySymbol("USDC").address
const BONK = mintBySymbol("BONK").address

const run = async (body: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, body)
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body
}

const expectedOut = (pool: Awaited<ReturnType<typeof readPool>>, inputMint: string, amount: bigint) =>
  pool.mintA.address === inputMint ? swapOutput(amount, pool.reserveA, pool.reserveB, pool.feeBps) : swapOutput(amount, pool.reserveB, pool.reserveA, pool.feeBps)

describe("swap intents on the local AMM pools", () => {
  it("swaps SOL for USDC on amm-one and USDC for BONK on amm-two, receiving exactly the pools' output", async () => {
    const wallet = await createWallet(env.service.baseUrl, 5_000_000_000)
    const amount = 1_000_000_000n
    const before = await readPool(env.ledger.rpcUrl, "amm-one", SOL, USDC)
    const solForUsdc = await run({
      walletId: wallet.id, type: "swap", protocol: "amm-one",
      intent: { inputMint: SOL.toBase58(), outputMint: USDC.toBase58(), amount: amount.toString(), slippageBps: 50 }
    })
    expect(solForUsdc.data.status).toBe("confirmed")
    const usdc = await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, USDC)
    expect(usdc).toBe(expectedOut(before, SOL.toBase58(), amount))
    const after = await readPool(env.ledger.rpcUrl, "amm-one", SOL, USDC)
    const [solReserve, usdcReserve] = after.mintA.address === SOL.toBase58() ? [after.reserveA, after.reserveB] : [after.reserveB, after.reserveA]
    const [solBefore, usdcBefore] = before.mintA.address === SOL.toBase58() ? [before.reserveA, before.reserveB] : [before.reserveB, before.reserveA]
    expect(solReserve - solBefore).toBe(amount)
    expect(usdcBefore - usdcReserve).toBe(usdc)
    // the lamport delta guard: SOL sold plus the new USDC account's rent, fees within the tolerance
    const rent = await new Connection(env.ledger.rpcUrl, "confirmed").getMinimumBalanceForRentExemption(165)
    expect(solForUsdc.data.deltaGuard).toMatchObject({ ok: true, expectedLamportsDelta: -(1_000_000_000 + rent) })
    expect(solForUsdc.data.deltaGuard?.observedLamportsDelta).toBeLessThan(-(1_000_000_000 + rent))
    // the wrapped-SOL account was closed: no wrapped SOL is left behind
    expect(await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, SOL)).toBe(0n)

    const half = usdc / 2n
    const bonkPool = await readPool(env.ledger.rpcUrl, "amm-two", USDC, BONK)
    const usdcForBonk = await run({
      walletId: wallet.id, type: "swap", protocol: "amm-two",
      intent: { inputMint: USDC.toBase58(), outputMint: BONK.toBase58(), amount: half.toString(), slippageBps: 100 }
    })
    expect(usdcForBonk.data.status).toBe("confirmed")
    const bonk = expectedOut(bonkPool, USDC.toBase58(), half)
    expect(await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, BONK)).toBe(bonk)
    expect(await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, USDC)).toBe(usdc - half)
    // the delta guard checked both token flows against the landed transaction's token balances
    expect(usdcForBonk.data.deltaGuard).toMatchObject({
      ok: true,
      tokens: [
        { mint: USDC.toBase58(), observedDelta: (-half).toString(), expectedDelta: (-half).toString(), ok: true },
        { mint: BONK.toBase58(), observedDelta: bonk.toString(), minimumDelta: ((bonk * 9_900n) / 10_000n).toString(), ok: true }
      ]
    })
  })

  it("routes a large swap through the dex-aggregator across both AMMs when the split pays more", async () => {
    const wallet = await createWallet(env.service.baseUrl, 10_000_000_000)
    const amount = 9_000_000_000n
    const pools = [await readPool(env.ledger.rpcUrl, "amm-one", SOL, USDC), await readPool(env.ledger.rpcUrl, "amm-two", SOL, USDC)]
    const route = bestRoute(pools, SOL.toBase58(), amount)!
    expect(route.legs.map((leg) => leg.protocol).sort()).toEqual(["amm-one", "amm-two"])
    expect(route.outAmount).toBeGreaterThan(expectedOut(pools[0]!, SOL.toBase58(), amount))
    expect(route.outAmount).toBeGreaterThan(expectedOut(pools[1]!, SOL.toBase58(), amount))
    const swapped = await run({
      walletId: wallet.id, type: "swap", protocol: "dex-aggregator",
      intent: { inputMint: SOL.toBase58(), outputMint: USDC.toBase58(), amount: amount.toString(), slippageBps: 50 }
    })
    expect(swapped.data.status).toBe("confirmed")
    expect(await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, USDC)).toBe(route.outAmount)
  })

  it("is not signed when, approved after the pool moved, its rebuilt simulation shows the AMM's minimumOut error: nothing lands", async () => {
    const wallet = await createWallet(env.service.baseUrl, 5_000_000_000)
    const mover = await createWallet(env.service.baseUrl, 10_000_000_000)
    const amount = 1_000_000_000n
    const pool = await readPool(env.ledger.rpcUrl, "amm-one", SOL, USDC)
    const minimumOut = expectedOut(pool, SOL.toBase58(), amount)
    // the swap waits at the approval gate, already built and simulated against the pool as it is now
    const created = await submit(env.service.baseUrl, {
      walletId: wallet.id, type: "swap", protocol: "amm-one", requireApproval: true,
      intent: { inputMint: SOL.toBase58(), outputMint: USDC.toBase58(), amount: amount.toString(), slippageBps: 50, minimumOut: minimumOut.toString() }
    })
    expect((await waitSettled(env.service.baseUrl, created.body.data.id)).body.data.status).toBe("approval_gate")
    // meanwhile another wallet sells SOL into the same pool: the price of SOL in USDC drops
    const moved = await run({
      walletId: mover.id, type: "swap", protocol: "amm-one",
      intent: { inputMint: SOL.toBase58(), outputMint: USDC.toBase58(), amount: "9000000000", slippageBps: 100 }
    })
    expect(moved.data.status).toBe("confirmed")
    expect((await makeClient(env.service.baseUrl).transactions.approve({ params: { txId: created.body.data.id } })).status).toBe(200)
    const failed = await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)
    // approvals outlive blockhashes (issue 31): built again after approval, it is simulated before signing,
    // and the program's refusal shows there; the program's own check is tested in test/programs/amm.test.ts
    expect(failed.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(failed.body.error).toContain("simulation failed after approval")
    expect(failed.body.error).toContain("7012")
    expect(failed.body.error).toContain("output below minimumOut")
    expect(failed.body.data.signature).toBeUndefined()
    expect(await tokenBalance(env.ledger.rpcUrl, wallet.publicKey, USDC)).toBe(0n)
  })

  it("fails at build when the simulation already shows the output below minimumOut, naming the AMM's error", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2_000_000_000)
    const pool = await readPool(env.ledger.rpcUrl, "amm-two", SOL, USDC)
    const tooHigh = expectedOut(pool, SOL.toBase58(), 100_000_000n) + 1n
    const refused = await run({
      walletId: wallet.id, type: "swap", protocol: "amm-two",
      intent: { inputMint: SOL.toBase58(), outputMint: USDC.toBase58(), amount: "100000000", slippageBps: 50, minimumOut: tooHigh.toString() }
    })
    expect(refused).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(refused.error).toContain(`AMM program ${LOCAL_AMM_PROGRAM_IDS["amm-two"]} refused the swap: error 7012 output below minimumOut`)
    expect(refused.data.signature ?? null).toBeNull()
  })
})
