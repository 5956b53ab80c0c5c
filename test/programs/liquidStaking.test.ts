/**
 * The liquid-staking program on litesvm directly: the first stake is 1:1, the operator's add_rewards raises the
 * exchange rate (and only the pool authority may call it), later stakes mint floor(lamports * supply / total),
 * an instant unstake pays floor(lst * total / supply) minus the fee, which stays in the pool; and its refusals.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { createAssociatedTokenAccountIdempotentInstruction, createInitializeMint2Instruction, getAssociatedTokenAddressSync, MINT_SIZE, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { Keypair, PublicKey, SystemProgram } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { describeSimulationError } from "../../src/pipeline/simulationError.js"
import { addRewardsInstruction, initStakePoolInstruction, stakeInstruction, unstakeInstruction } from "../../src/protocols/staking/instructions.js"
import { decodeStakePool, lamportsForUnstake, lstForStake, stakePoolAddress } from "../../src/protocols/staking/layout.js"
import { TestLedger } from "./ledger.js"

const SO = fileURLToPath(new URL("../../programs/dist/liquid-staking.so", import.meta.url))
const PROGRAM_ID = new PublicKey("LiqStake11111111111111111111111111111111111")
const SOL = 1_000_000_000n
/** The other programs the pipeline names failures of: none of them runs here. */
const OTHER_PROGRAMS = {
  escrow: "Escrow1111111111111111111111111111111111111",
  ammOne: "AmmOne1111111111111111111111111111111111111",
  ammTwo: "AmmTwo1111111111111111111111111111111111111",
  lendingMarket: "Lending111111111111111111111111111111111111"
}

const setup = (options: { freezeAuthority?: boolean } = {}) => {
  const ledger = new TestLedger()
  ledger.addProgram(PROGRAM_ID, readFileSync(SO))
  const authority = ledger.payer
  const lstMint = Keypair.generate()
  const pool = stakePoolAddress(PROGRAM_ID)
  const created = ledger.send([
    SystemProgram.createAccount({ fromPubkey: authority.publicKey, newAccountPubkey: lstMint.publicKey, lamports: Number(ledger.rentExempt(MINT_SIZE)), space: MINT_SIZE, programId: TOKEN_PROGRAM_ID }),
    createInitializeMint2Instruction(lstMint.publicKey, 9, pool, options.freezeAuthority === true ? authority.publicKey : null)
  ], [lstMint])
  expect(created.ok).toBe(true)
  const init = ledger.send([initStakePoolInstruction(PROGRAM_ID, authority.publicKey, lstMint.publicKey, 30)])
  const state = () => decodeStakePool(ledger.data(pool)!)!
  const supply = () => Buffer.from(ledger.data(lstMint.publicKey)!).readBigUInt64LE(36)
  const staker = () => {
    const keypair = ledger.newFundedKeypair(20n * SOL)
    const account = getAssociatedTokenAddressSync(lstMint.publicKey, keypair.publicKey)
    expect(ledger.send([createAssociatedTokenAccountIdempotentInstruction(authority.publicKey, account, keypair.publicKey, lstMint.publicKey)]).ok).toBe(true)
    const keys = { programId: PROGRAM_ID, staker: keypair.publicKey, lstMint: lstMint.publicKey, stakerLst: account }
    return { keypair, keys, lst: () => Buffer.from(ledger.data(account)!).readBigUInt64LE(64) }
  }
  return { ledger, authority, lstMint, pool, init, state, supply, staker }
}

describe("liquid-staking program", () => {
  it("stakes 1:1 into an empty pool, raises the rate with rewards, and unstakes at the rate minus the fee", async () => {
    const { ledger, authority, pool, init, state, supply, staker } = setup()
    expect(init.ok).toBe(true)
    expect(state()).toMatchObject({ feeBps: 30, totalLamports: 0n })
    // rewards into an empty pool would belong to nobody
    expect(ledger.send([addRewardsInstruction(PROGRAM_ID, authority.publicKey, SOL)]).customError).toBe(7118)

    const first = staker()
    expect(ledger.send([stakeInstruction(first.keys, 10n * SOL, 10n * SOL)], [first.keypair]).ok).toBe(true)
    expect(first.lst()).toBe(10n * SOL)

    // only the pool's authority cranks rewards
    const stranger = ledger.newFundedKeypair(5n * SOL)
    expect(ledger.send([addRewardsInstruction(PROGRAM_ID, stranger.publicKey, SOL)], [stranger]).customError).toBe(7117)
    const poolBefore = ledger.balance(pool)
    expect(ledger.send([addRewardsInstruction(PROGRAM_ID, authority.publicKey, SOL / 2n)]).ok).toBe(true)
    expect(state()).toMatchObject({ totalLamports: 10n * SOL + SOL / 2n, totalRewards: SOL / 2n })
    expect(ledger.balance(pool)).toBe(poolBefore + SOL / 2n)

    // at 1.05 SOL per LST a stake mints fewer LST, exactly as the client computes
    const second = staker()
    const expected = lstForStake(3n * SOL, state().totalLamports, supply())
    expect(expected).toBe((3n * SOL * 10n * SOL) / (10n * SOL + SOL / 2n))
    // a minimum above what the rate gives fails on chain
    const tooHigh = ledger.send([stakeInstruction(second.keys, 3n * SOL, expected + 1n)], [second.keypair])
    expect(tooHigh.customError).toBe(7110)
    // the pipeline names the refusal from the program's logs
    expect(describeSimulationError({ InstructionError: [0, { Custom: 7110 }] }, tooHigh.logs, { ...OTHER_PROGRAMS, liquidStaking: PROGRAM_ID.toBase58() }))
      .toBe(`liquid-staking program ${PROGRAM_ID.toBase58()} refused: error 7110 output below the minimum (the exchange rate moved past the bound)`)
    expect(ledger.send([stakeInstruction(second.keys, 3n * SOL, expected)], [second.keypair]).ok).toBe(true)
    expect(second.lst()).toBe(expected)

    // instant unstake: the fee payer is the authority, so the staker's balance moves by exactly the payout
    const { gross, fee, net } = lamportsForUnstake(expected, state().totalLamports, supply(), 30)
    expect(fee).toBe((gross * 30n) / 10_000n)
    const totalBefore = state().totalLamports
    const balanceBefore = ledger.balance(second.keypair.publicKey)
    expect(ledger.send([unstakeInstruction(second.keys, expected, net + 1n)], [second.keypair]).customError).toBe(7110)
    expect(ledger.send([unstakeInstruction(second.keys, expected, net)], [second.keypair]).ok).toBe(true)
    expect(ledger.balance(second.keypair.publicKey) - balanceBefore).toBe(net)
    expect(second.lst()).toBe(0n)
    // the fee stayed in the pool
    expect(state().totalLamports).toBe(totalBefore - net)
  })

  it("refuses a second init, a mint with a freeze authority, and an unstake beyond the staker's LST", async () => {
    const { ledger, authority, lstMint, init, staker } = setup()
    expect(init.ok).toBe(true)
    expect(ledger.send([initStakePoolInstruction(PROGRAM_ID, authority.publicKey, lstMint.publicKey, 30)]).customError).toBe(7105)
    const holder = staker()
    expect(ledger.send([stakeInstruction(holder.keys, SOL, 1n)], [holder.keypair]).ok).toBe(true)
    expect(ledger.send([unstakeInstruction(holder.keys, SOL + 1n, 0n)], [holder.keypair]).customError).toBe(7116)
    expect(ledger.send([stakeInstruction(holder.keys, 0n, 0n)], [holder.keypair]).customError).toBe(7109)

    const frozen = setup({ freezeAuthority: true })
    expect(frozen.init.customError).toBe(7107)
  })
})
