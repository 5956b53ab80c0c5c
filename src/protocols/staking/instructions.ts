/** Instructions of the liquid-staking program (programs/liquid-staking/README.md). */
import { TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { type PublicKey, SystemProgram, TransactionInstruction } from "@solana/web3.js"
import { stakePoolAddress } from "./layout.js"

export const IX_INIT_POOL = 0
export const IX_STAKE = 1
export const IX_UNSTAKE = 2
export const IX_ADD_REWARDS = 3

const u64 = (value: bigint) => {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64LE(value)
  return bytes
}

const meta = (pubkey: PublicKey, isSigner: boolean, isWritable: boolean) => ({ pubkey, isSigner, isWritable })

/** init_pool: the LST mint must exist already (authority = the pool PDA, 9 decimals, no freeze authority). */
export const initStakePoolInstruction = (programId: PublicKey, authority: PublicKey, lstMint: PublicKey, feeBps: number) => {
  const fee = Buffer.alloc(2)
  fee.writeUInt16LE(feeBps)
  return new TransactionInstruction({
    programId,
    keys: [meta(authority, true, true), meta(stakePoolAddress(programId), false, true), meta(lstMint, false, false), meta(SystemProgram.programId, false, false)],
    data: Buffer.concat([Buffer.from([IX_INIT_POOL]), fee])
  })
}

export interface StakeArgs {
  readonly programId: PublicKey
  readonly staker: PublicKey
  readonly lstMint: PublicKey
  /** the staker's LST token account */
  readonly stakerLst: PublicKey
}

/** stake: `lamports` of SOL for at least `minimumLst` LST. */
export const stakeInstruction = (args: StakeArgs, lamports: bigint, minimumLst: bigint) =>
  new TransactionInstruction({
    programId: args.programId,
    keys: [
      meta(args.staker, true, true), meta(stakePoolAddress(args.programId), false, true), meta(args.lstMint, false, true),
      meta(args.stakerLst, false, true), meta(TOKEN_PROGRAM_ID, false, false), meta(SystemProgram.programId, false, false)
    ],
    data: Buffer.concat([Buffer.from([IX_STAKE]), u64(lamports), u64(minimumLst)])
  })

/** unstake (instant): burns `lst` for at least `minimumLamports` after the fee. */
export const unstakeInstruction = (args: StakeArgs, lst: bigint, minimumLamports: bigint) =>
  new TransactionInstruction({
    programId: args.programId,
    keys: [
      meta(args.staker, true, true), meta(stakePoolAddress(args.programId), false, true), meta(args.lstMint, false, true),
      meta(args.stakerLst, false, true), meta(TOKEN_PROGRAM_ID, false, false)
    ],
    data: Buffer.concat([Buffer.from([IX_UNSTAKE]), u64(lst), u64(minimumLamports)])
  })

/** add_rewards: the pool authority's crank, raising the exchange rate. */
export const addRewardsInstruction = (programId: PublicKey, authority: PublicKey, lamports: bigint) =>
  new TransactionInstruction({
    programId,
    keys: [meta(authority, true, true), meta(stakePoolAddress(programId), false, true), meta(SystemProgram.programId, false, false)],
    data: Buffer.concat([Buffer.from([IX_ADD_REWARDS]), u64(lamports)])
  })
