/**
 * Liquid staking on the local ledger (seeded as `npm start` does: 100 SOL staked, 5 SOL of rewards, 0.3% fee):
 * POST /defi/stake quotes the LST the pool's exchange rate gives, its execute request confirms through the
 * pipeline and the wallet holds exactly that LST; unstaking it all returns floor(lst * total / supply) minus the
 * recorded 0.3% fee (plus nothing but the network fee gone); health is ok; a reward crank raises the rate.
 */
import { getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Connection, PublicKey, Transaction } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { SEED_STAKE_POOL } from "../../src/ledger/seedStakePool.js"
import { decodeStakePool, stakePoolAddress } from "../../src/protocols/staking/layout.js"
import { LOCAL_LIQUID_STAKING_PROGRAM_ID } from "../../src/protocols/staking/stakingIds.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { defined } from "../support/defined.js"
import type { DefiPreview, RewardsCrank, StakeQuote } from "../support/undeclaredAnswers.js"

const env = useServiceWithLedger({ ledger: { staking: true }, env: { LIQUID_STAKING_PROGRAM_ID: LOCAL_LIQUID_STAKING_PROGRAM_ID } })
const programId = new PublicKey(LOCAL_LIQUID_STAKING_PROGRAM_ID)

const readPool = async () => {
  const connection = new Connection(env.ledger.rpcUrl, "confirmed")
  const info = await connection.getAccountInfo(stakePoolAddress(programId))
  const state = decodeStakePool(info!.data)!
  const mint = await connection.getAccountInfo(state.lstMint)
  return { ...state, supply: mint!.data.readBigUInt64LE(36) }
}

const lstBalance = async (owner: string, mint: PublicKey) => {
  const info = await new Connection(env.ledger.rpcUrl, "confirmed").getAccountInfo(getAssociatedTokenAddressSync(mint, new PublicKey(owner)))
  return info === null ? 0n : info.data.readBigUInt64LE(64)
}

const networkFee = async (signature: string) => {
  const tx = await new Connection(env.ledger.rpcUrl, "confirmed").getTransaction(signature, { maxSupportedTransactionVersion: 0 })
  return BigInt(tx!.meta!.fee)
}

describe("liquid staking", () => {
  it("reports the deployed program as healthy", async () => {
    const health = await makeClient(env.service.baseUrl).protocols.protocolHealth({ params: { protocol: "liquid-staking" } })
    expect(health.body.data).toEqual({ protocol: "liquid-staking", ok: true, configured: true, deployed: true, programId: LOCAL_LIQUID_STAKING_PROGRAM_ID })
  })

  it("stakes SOL for LST at the exchange rate, then unstakes it for SOL minus the recorded fee", async () => {
    const wallet = await createWallet(env.service.baseUrl, 5_000_000_000)
    const before = await readPool()
    // the seeded rate: 105 SOL behind 100 LST
    expect(before.totalLamports).toBeGreaterThanOrEqual(SEED_STAKE_POOL.stakeLamports + SEED_STAKE_POOL.rewardLamports)
    expect(before.feeBps).toBe(SEED_STAKE_POOL.feeBps)
    const amount = 2_000_000_000n
    const expectedLst = (amount * before.supply) / before.totalLamports
    expect(expectedLst).toBeLessThan(amount)

    const preview = await api<DefiPreview<StakeQuote>>(env.service.baseUrl, "POST", "/api/v1/defi/stake", { protocol: "liquid-staking", wallet: wallet.publicKey, amount: amount.toString() })
    expect(preview.status).toBe(200)
    const { quote, transaction, execute } = preview.body.data
    expect(quote).toMatchObject({ amountLamports: Number(amount), lstAmount: expectedLst.toString(), pool: { lstMint: before.lstMint.toBase58(), unstakeFeeBps: 30 } })
    const unsigned = Transaction.from(Buffer.from(transaction.unsignedTransaction, "base64"))
    expect(unsigned.feePayer?.toBase58()).toBe(wallet.publicKey)
    expect(transaction.programIds).toContain(LOCAL_LIQUID_STAKING_PROGRAM_ID)
    expect(execute).toMatchObject({ method: "POST", path: "/api/v1/transactions", body: { walletId: wallet.id, type: "stake", protocol: "liquid-staking", intent: { amount: amount.toString() } } })

    const staked = (await waitSettled(env.service.baseUrl, (await submit(env.service.baseUrl, execute.body)).body.data.id, 60_000)).data
    expect(staked.status).toBe("confirmed")
    expect(staked.deltaGuard?.ok).toBe(true)
    expect(await lstBalance(wallet.publicKey, before.lstMint)).toBe(expectedLst)
    const afterStake = await readPool()
    expect(afterStake.totalLamports).toBe(before.totalLamports + amount)
    expect(afterStake.supply).toBe(before.supply + expectedLst)

    // unstake everything: gross at the rate, minus 0.3% kept by the pool
    const gross = (expectedLst * afterStake.totalLamports) / afterStake.supply
    const fee = (gross * 30n) / 10_000n
    const unstakePreview = await api<DefiPreview>(env.service.baseUrl, "POST", "/api/v1/defi/unstake", { protocol: "liquid-staking", wallet: wallet.publicKey, amount: expectedLst.toString() })
    expect(unstakePreview.status).toBe(200)
    expect(unstakePreview.body.data.quote).toMatchObject({ grossLamports: Number(gross), feeLamports: Number(fee), lamports: Number(gross - fee) })
    const unstaked = (await waitSettled(env.service.baseUrl, (await submit(env.service.baseUrl, unstakePreview.body.data.execute.body)).body.data.id, 60_000)).data
    expect(unstaked.status).toBe("confirmed")
    expect(unstaked.deltaGuard).toMatchObject({ ok: true, expectedLamportsDelta: Number(gross - fee) })
    const observed = defined(unstaked.postBalanceLamports, "postBalanceLamports") - defined(unstaked.preBalanceLamports, "preBalanceLamports")
    expect(observed + (await networkFee(defined(unstaked.signature, "the signature")))).toBe(gross - fee)
    expect(await lstBalance(wallet.publicKey, before.lstMint)).toBe(0n)
    // the fee stayed in the pool: the rate rose for the remaining holders
    const after = await readPool()
    expect(after.totalLamports).toBe(afterStake.totalLamports - (gross - fee))
    expect(after.totalLamports * before.supply).toBeGreaterThan(before.totalLamports * after.supply)
  })

  it("refuses an unstake beyond the wallet's LST at build, and stake on lending-market", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const unstake = await api(env.service.baseUrl, "POST", "/api/v1/defi/unstake", { protocol: "liquid-staking", wallet: wallet.publicKey, amount: "1000" })
    expect(unstake.status).toBe(500)
    expect(unstake.body).toMatchObject({ errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(unstake.body.error).toContain("insufficient LST")
    const lending = await api(env.service.baseUrl, "POST", "/api/v1/defi/stake", { protocol: "lending-market", wallet: wallet.publicKey, amount: "1000" })
    expect(lending.status).toBe(500)
    expect(lending.body.error).toContain("lending-market has no stake")
  })

  it("the operator's reward crank raises the exchange rate: the same stake then gets fewer LST", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const before = await readPool()
    const crank = await api<RewardsCrank>(env.service.baseUrl, "POST", "/api/v1/defi/stake/rewards", { lamports: "2000000000" })
    expect(crank.status).toBe(200)
    const after = await readPool()
    expect(after.totalLamports).toBe(before.totalLamports + 2_000_000_000n)
    expect(after.totalRewards).toBe(before.totalRewards + 2_000_000_000n)
    expect(after.supply).toBe(before.supply)
    expect(crank.body.data.pool.lamportsPerLst).toBe(((1_000_000_000n * after.totalLamports) / after.supply).toString())
    const quote = (await api<DefiPreview<StakeQuote>>(env.service.baseUrl, "POST", "/api/v1/defi/stake", { protocol: "liquid-staking", wallet: wallet.publicKey, amount: "500000000" })).body.data.quote
    expect(BigInt(quote.lstAmount)).toBe((500_000_000n * after.supply) / after.totalLamports)
    expect(BigInt(quote.lstAmount)).toBeLessThan((500_000_000n * before.supply) / before.totalLamports)

    const bad = await api(env.service.baseUrl, "POST", "/api/v1/defi/stake/rewards", { lamports: "-1" })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("lamports")
    expect((await readPool()).totalLamports).toBe(after.totalLamports)
  })
})
