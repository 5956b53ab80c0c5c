/**
 * The liquid-staking pool account (programs/liquid-staking/staking.h StakePoolState, 88 bytes), its address,
 * and the program's exchange-rate arithmetic (exact integers, as on chain).
 */
import { PublicKey } from "@solana/web3.js"

export const STAKE_POOL_ACCOUNT_SIZE = 88
export const STAKE_POOL_ACCOUNT_TAG = 3
export const LST_DECIMALS = 9
const BPS = 10_000n

export interface StakePoolState {
  readonly feeBps: number
  readonly authority: PublicKey
  readonly lstMint: PublicKey
  /** SOL backing the LST (the pool's lamports above its rent) */
  readonly totalLamports: bigint
  readonly totalRewards: bigint
}

const key = (data: Uint8Array, offset: number) => new PublicKey(data.subarray(offset, offset + 32))

/** Null when the bytes are not a stake pool (wrong size or tag). */
export const decodeStakePool = (data: Uint8Array): StakePoolState | null => {
  if (data.length !== STAKE_POOL_ACCOUNT_SIZE || data[0] !== STAKE_POOL_ACCOUNT_TAG) return null
  const view = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
  return {
    feeBps: view.readUInt16LE(2),
    authority: key(data, 8),
    lstMint: key(data, 40),
    totalLamports: view.readBigUInt64LE(72),
    totalRewards: view.readBigUInt64LE(80)
  }
}

/** The one pool of a deployment: seeds "stake_pool". */
export const stakePoolAddress = (programId: PublicKey): PublicKey =>
  PublicKey.findProgramAddressSync([Buffer.from("stake_pool")], programId)[0]

/** LST minted for `lamports`: 1:1 into an empty pool, else floor(lamports * supply / total). */
export const lstForStake = (lamports: bigint, totalLamports: bigint, supply: bigint): bigint =>
  supply === 0n ? lamports : totalLamports === 0n ? 0n : (lamports * supply) / totalLamports

export const feeOf = (amount: bigint, feeBps: number): bigint => (amount * BigInt(feeBps)) / BPS

/** Lamports paid for burning `lst`: floor(lst * total / supply), minus the instant-unstake fee. */
export const lamportsForUnstake = (lst: bigint, totalLamports: bigint, supply: bigint, feeBps: number) => {
  const gross = supply === 0n ? 0n : (lst * totalLamports) / supply
  const fee = feeOf(gross, feeBps)
  return { gross, fee, net: gross - fee }
}

/** Lamports one whole LST (10^9 base units) is worth, before the unstake fee. */
export const lamportsPerLst = (totalLamports: bigint, supply: bigint): bigint =>
  supply === 0n ? 1_000_000_000n : (1_000_000_000n * totalLamports) / supply
