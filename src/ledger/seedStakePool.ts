/**
 * Seeds the liquid-staking pool on a fresh local ledger through real transactions: the LST mint (authority:
 * the pool PDA), init_pool with the instant-unstake fee, a first stake by the seed authority, and one reward
 * crank, so the exchange rate starts above 1 (1.05 SOL per LST). Idempotent: an existing pool is left alone.
 */
import { address, lamports } from "@solana/kit"
import { createAssociatedTokenAccountIdempotentInstruction, createInitializeMint2Instruction, getAssociatedTokenAddressSync, MINT_SIZE, TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { PublicKey, SystemProgram } from "@solana/web3.js"
import type { LiteSVM } from "litesvm"
import { localKeypair, SEED_AUTHORITY } from "../protocols/amm/localPools.js"
import { addRewardsInstruction, initStakePoolInstruction, stakeInstruction } from "../protocols/staking/instructions.js"
import { LST_DECIMALS, stakePoolAddress } from "../protocols/staking/layout.js"
import { send } from "./seedPools.js"

const SOL = 1_000_000_000n

/** The seeded pool: 0.3% instant-unstake fee, 100 SOL staked, 5 SOL of rewards. */
export const SEED_STAKE_POOL = { feeBps: 30, stakeLamports: 100n * SOL, rewardLamports: 5n * SOL } as const
export const LOCAL_LST_MINT = localKeypair("lst liquid-staking")

/** True when it created the pool. */
export const seedStakePool = (svm: LiteSVM, programIdText: string): boolean => {
  const programId = new PublicKey(programIdText)
  if (svm.getAccount(address(stakePoolAddress(programId).toBase58())).exists) return false
  const authority = SEED_AUTHORITY.publicKey
  svm.airdrop(address(authority.toBase58()), lamports(200n * SOL))
  const pool = stakePoolAddress(programId)
  const lstMint = LOCAL_LST_MINT
  const mintRent = svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE))
  send(svm, [
    SystemProgram.createAccount({ fromPubkey: authority, newAccountPubkey: lstMint.publicKey, lamports: Number(mintRent), space: MINT_SIZE, programId: TOKEN_PROGRAM_ID }),
    createInitializeMint2Instruction(lstMint.publicKey, LST_DECIMALS, pool, null),
    initStakePoolInstruction(programId, authority, lstMint.publicKey, SEED_STAKE_POOL.feeBps)
  ], [lstMint])
  const stakerLst = getAssociatedTokenAddressSync(lstMint.publicKey, authority)
  send(svm, [
    createAssociatedTokenAccountIdempotentInstruction(authority, stakerLst, authority, lstMint.publicKey),
    stakeInstruction({ programId, staker: authority, lstMint: lstMint.publicKey, stakerLst }, SEED_STAKE_POOL.stakeLamports, 1n),
    addRewardsInstruction(programId, authority, SEED_STAKE_POOL.rewardLamports)
  ], [])
  return true
}
