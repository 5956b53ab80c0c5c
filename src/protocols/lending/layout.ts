/**
 * The lending-market accounts (programs/lending-market/lending.h: ReserveState 192 bytes, ObligationState 232
 * bytes), their addresses, and the program's arithmetic (exact integers, as on chain): interest index, what
 * supply shares and scaled debts are worth, oracle values and the health check.
 */
import { PublicKey } from "@solana/web3.js"

export const RESERVE_ACCOUNT_SIZE = 192
export const OBLIGATION_ACCOUNT_SIZE = 232
export const RESERVE_ACCOUNT_TAG = 5
export const OBLIGATION_ACCOUNT_TAG = 6
export const MAX_OBLIGATION_SLOTS = 4
export const INDEX_ONE = 1_000_000_000_000n
export const SECONDS_PER_YEAR = 31_536_000n
/** values compared by the health check: USD with 6 decimals */
export const VALUE_DECIMALS = 6
const BPS = 10_000n

export interface ReserveState {
  readonly decimals: number
  readonly collateralFactorBps: number
  readonly borrowRateBps: number
  readonly flashFeeBps: number
  readonly mint: PublicKey
  readonly vault: PublicKey
  readonly oracle: PublicKey
  readonly authority: PublicKey
  readonly supplyShares: bigint
  readonly borrowedScaled: bigint
  readonly borrowIndex: bigint
  readonly lastAccrualTs: bigint
  readonly flashOutstanding: bigint
  readonly available: bigint
}

export interface ObligationSlot {
  readonly reserve: PublicKey
  readonly supplyShares: bigint
  readonly borrowedScaled: bigint
}

export interface ObligationState {
  readonly owner: PublicKey
  readonly slots: ReadonlyArray<ObligationSlot>
}

const key = (data: Uint8Array, offset: number) => new PublicKey(data.subarray(offset, offset + 32))
const view = (data: Uint8Array) => Buffer.from(data.buffer, data.byteOffset, data.byteLength)

/** Null when the bytes are not a reserve (wrong size or tag). */
export const decodeReserve = (data: Uint8Array): ReserveState | null => {
  if (data.length !== RESERVE_ACCOUNT_SIZE || data[0] !== RESERVE_ACCOUNT_TAG) return null
  const v = view(data)
  return {
    decimals: v.readUInt8(2),
    collateralFactorBps: v.readUInt16LE(4),
    borrowRateBps: v.readUInt16LE(6),
    flashFeeBps: v.readUInt16LE(8),
    mint: key(data, 16),
    vault: key(data, 48),
    oracle: key(data, 80),
    authority: key(data, 112),
    supplyShares: v.readBigUInt64LE(144),
    borrowedScaled: v.readBigUInt64LE(152),
    borrowIndex: v.readBigUInt64LE(160),
    lastAccrualTs: v.readBigInt64LE(168),
    flashOutstanding: v.readBigUInt64LE(176),
    available: v.readBigUInt64LE(184)
  }
}

/** Null when the bytes are not an obligation. */
export const decodeObligation = (data: Uint8Array): ObligationState | null => {
  if (data.length !== OBLIGATION_ACCOUNT_SIZE || data[0] !== OBLIGATION_ACCOUNT_TAG) return null
  const v = view(data)
  const count = Math.min(v.readUInt8(2), MAX_OBLIGATION_SLOTS)
  const slots = Array.from({ length: count }, (_, i) => {
    const at = 40 + 48 * i
    return { reserve: key(data, at), supplyShares: v.readBigUInt64LE(at + 32), borrowedScaled: v.readBigUInt64LE(at + 40) }
  })
  return { owner: key(data, 8), slots }
}

/** A mint's reserve: seeds "reserve", mint. */
export const reserveAddress = (programId: PublicKey, mint: PublicKey): PublicKey =>
  PublicKey.findProgramAddressSync([Buffer.from("reserve"), mint.toBuffer()], programId)[0]

/** An owner's obligation: seeds "obligation", owner. */
export const obligationAddress = (programId: PublicKey, owner: PublicKey): PublicKey =>
  PublicKey.findProgramAddressSync([Buffer.from("obligation"), owner.toBuffer()], programId)[0]

const ceilDiv = (n: bigint, d: bigint) => (n + d - 1n) / d

/** The borrow index at `now` (unix seconds): index + floor(index * rate * elapsed / (10000 * year)). */
export const currentIndex = (reserve: ReserveState, now: bigint): bigint => {
  if (now <= reserve.lastAccrualTs || reserve.borrowedScaled === 0n) return reserve.borrowIndex
  const elapsed = now - reserve.lastAccrualTs
  return reserve.borrowIndex + (reserve.borrowIndex * BigInt(reserve.borrowRateBps) * elapsed) / (BPS * SECONDS_PER_YEAR)
}

/** Cash + borrows with interest: what all supply shares are worth. */
export const totalAssets = (reserve: ReserveState, index: bigint): bigint => reserve.available + (reserve.borrowedScaled * index) / INDEX_ONE

/** Base units a slot's shares are worth, and what it owes (rounded up), at `now`. */
export const slotAmounts = (reserve: ReserveState, slot: Pick<ObligationSlot, "supplyShares" | "borrowedScaled">, now: bigint) => {
  const index = currentIndex(reserve, now)
  const supplied = slot.supplyShares === 0n || reserve.supplyShares === 0n ? 0n : (slot.supplyShares * totalAssets(reserve, index)) / reserve.supplyShares
  const borrowed = slot.borrowedScaled === 0n ? 0n : ceilDiv(slot.borrowedScaled * index, INDEX_ONE)
  return { supplied, borrowed }
}

/** Shares minted for supplying `amount` (1:1 into an empty reserve), after accrual to `now`. */
export const sharesForSupply = (reserve: ReserveState, amount: bigint, now: bigint): bigint =>
  reserve.supplyShares === 0n ? amount : (amount * reserve.supplyShares) / totalAssets(reserve, currentIndex(reserve, now))

/** Scaled debt added by borrowing `amount` (rounded up), after accrual to `now`. */
export const scaledForBorrow = (reserve: ReserveState, amount: bigint, now: bigint): bigint => ceilDiv(amount * INDEX_ONE, currentIndex(reserve, now))

/**
 * What a withdraw of at most `amount` does at `now`, as the program computes it: at or above the slot's worth it
 * burns every share and pays the worth; below, it burns ceil(amount x shares / assets) and pays the amount.
 */
export const withdrawalFor = (reserve: ReserveState, slotShares: bigint, amount: bigint, now: bigint) => {
  const total = totalAssets(reserve, currentIndex(reserve, now))
  const worth = reserve.supplyShares === 0n ? 0n : (slotShares * total) / reserve.supplyShares
  return amount >= worth ? { shares: slotShares, paid: worth } : { shares: ceilDiv(amount * reserve.supplyShares, total), paid: amount }
}

/**
 * What a repay of at most `amount` does at `now`: it pays min(amount, debt); the whole debt clears the slot's
 * scaled debt, a part clears floor(paid x 10^12 / index) of it.
 */
export const repaymentFor = (reserve: ReserveState, slotScaled: bigint, amount: bigint, now: bigint) => {
  const index = currentIndex(reserve, now)
  const owed = ceilDiv(slotScaled * index, INDEX_ONE)
  return amount >= owed ? { paid: owed, cleared: slotScaled } : { paid: amount, cleared: (amount * INDEX_ONE) / index }
}

/** USD with VALUE_DECIMALS of `amount` base units at a Pyth price (price * 10^exponent USD per whole token). */
export const usdValue = (amount: bigint, decimals: number, price: bigint, exponent: number): bigint | null => {
  const scale = decimals - exponent - VALUE_DECIMALS
  if (price <= 0n || exponent > 0 || scale < 0) return null
  return (amount * price) / 10n ** BigInt(scale)
}

/** Flash loan fee: ceil(amount * fee_bps / 10000). */
export const flashFee = (amount: bigint, feeBps: number): bigint => ceilDiv(amount * BigInt(feeBps), BPS)

export interface PositionValue {
  /** supplied value (USD, VALUE_DECIMALS) x collateral factor */
  readonly collateralValue: bigint
  /** debt value (USD, VALUE_DECIMALS) */
  readonly debtValue: bigint
}

/** The health check's sums as the program computes them, from each position's values. */
export const healthOf = (positions: ReadonlyArray<{ readonly suppliedValue: bigint; readonly borrowedValue: bigint; readonly collateralFactorBps: number }>): PositionValue =>
  positions.reduce(
    (sum, p) => ({
      collateralValue: sum.collateralValue + (p.suppliedValue * BigInt(p.collateralFactorBps)) / BPS,
      debtValue: sum.debtValue + p.borrowedValue
    }),
    { collateralValue: 0n, debtValue: 0n }
  )
