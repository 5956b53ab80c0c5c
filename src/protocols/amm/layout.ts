/** The AMM program's pool account (programs/amm/amm.h PoolState, 168 bytes) and its addresses. */
import { PublicKey } from "@solana/web3.js"

export const POOL_ACCOUNT_SIZE = 168
export const POOL_ACCOUNT_TAG = 2
export const MAX_FEE_BPS = 1000

export interface PoolState {
  readonly feeBps: number
  readonly mintA: PublicKey
  readonly mintB: PublicKey
  readonly vaultA: PublicKey
  readonly vaultB: PublicKey
  readonly lpMint: PublicKey
}

const key = (data: Uint8Array, offset: number) => new PublicKey(data.subarray(offset, offset + 32))

/** Null when the bytes are not a pool (wrong size or tag). */
export const decodePoolState = (data: Uint8Array): PoolState | null => {
  if (data.length !== POOL_ACCOUNT_SIZE || data[0] !== POOL_ACCOUNT_TAG) return null
  return {
    feeBps: data[2]! | (data[3]! << 8),
    mintA: key(data, 8),
    mintB: key(data, 40),
    vaultA: key(data, 72),
    vaultB: key(data, 104),
    lpMint: key(data, 136)
  }
}

/** The pair in the program's canonical order (mint_a < mint_b bytewise). */
export const orderedMints = (x: PublicKey, y: PublicKey): readonly [PublicKey, PublicKey] =>
  Buffer.compare(x.toBuffer(), y.toBuffer()) < 0 ? [x, y] : [y, x]

/** The pool PDA of a pair: seeds "pool", mint_a, mint_b. */
export const poolAddress = (programId: PublicKey, x: PublicKey, y: PublicKey): PublicKey => {
  const [a, b] = orderedMints(x, y)
  return PublicKey.findProgramAddressSync([Buffer.from("pool"), a.toBuffer(), b.toBuffer()], programId)[0]
}
