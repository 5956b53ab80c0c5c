/** Instructions of the lending-market program (programs/lending-market/README.md). */
import { TOKEN_PROGRAM_ID } from "@solana/spl-token"
import { type PublicKey, SystemProgram, SYSVAR_INSTRUCTIONS_PUBKEY, TransactionInstruction } from "@solana/web3.js"
import { obligationAddress, reserveAddress } from "./layout.js"

export const IX_INIT_RESERVE = 0
export const IX_SUPPLY = 1
export const IX_BORROW = 2
export const IX_FLASH_BORROW = 3
export const IX_FLASH_REPAY = 4
export const IX_WITHDRAW = 5
export const IX_REPAY = 6

const amountData = (tag: number, amount: bigint) => {
  const bytes = Buffer.alloc(9)
  bytes[0] = tag
  bytes.writeBigUInt64LE(amount, 1)
  return bytes
}

const meta = (pubkey: PublicKey, isSigner: boolean, isWritable: boolean) => ({ pubkey, isSigner, isWritable })

export interface ReserveParameters {
  readonly collateralFactorBps: number
  readonly borrowRateBps: number
  readonly flashFeeBps: number
}

/** init_reserve: the vault must exist (a token account of `mint` owned by the reserve PDA), the oracle a PriceUpdateV2. */
export const initReserveInstruction = (programId: PublicKey, authority: PublicKey, mint: PublicKey, vault: PublicKey, oracle: PublicKey, parameters: ReserveParameters) => {
  const data = Buffer.alloc(7)
  data[0] = IX_INIT_RESERVE
  data.writeUInt16LE(parameters.collateralFactorBps, 1)
  data.writeUInt16LE(parameters.borrowRateBps, 3)
  data.writeUInt16LE(parameters.flashFeeBps, 5)
  return new TransactionInstruction({
    programId,
    keys: [
      meta(authority, true, true), meta(reserveAddress(programId, mint), false, true), meta(mint, false, false), meta(vault, false, false),
      meta(oracle, false, false), meta(SystemProgram.programId, false, false)
    ],
    data
  })
}

export interface MarketKeys {
  readonly programId: PublicKey
  readonly owner: PublicKey
  readonly mint: PublicKey
  readonly vault: PublicKey
  /** the owner's token account the tokens come from (supply, repay) or go to (borrow, withdraw) */
  readonly userToken: PublicKey
}

/** supply: creates the owner's obligation when it has none (the owner pays its rent). */
export const supplyInstruction = (keys: MarketKeys, amount: bigint) =>
  new TransactionInstruction({
    programId: keys.programId,
    keys: [
      meta(keys.owner, true, true), meta(obligationAddress(keys.programId, keys.owner), false, true), meta(reserveAddress(keys.programId, keys.mint), false, true),
      meta(keys.vault, false, true), meta(keys.userToken, false, true), meta(TOKEN_PROGRAM_ID, false, false), meta(SystemProgram.programId, false, false)
    ],
    data: amountData(IX_SUPPLY, amount)
  })

/** The reserve and oracle of an obligation slot: the health check reads every one of them. */
type Position = { readonly reserve: PublicKey; readonly oracle: PublicKey }

/** borrow and withdraw share their accounts: the health check's positions follow the token accounts. */
const healthCheckedInstruction = (ix: number, keys: MarketKeys, amount: bigint, positions: ReadonlyArray<Position>) =>
  new TransactionInstruction({
    programId: keys.programId,
    keys: [
      meta(keys.owner, true, false), meta(obligationAddress(keys.programId, keys.owner), false, true), meta(reserveAddress(keys.programId, keys.mint), false, true),
      meta(keys.vault, false, true), meta(keys.userToken, false, true), meta(TOKEN_PROGRAM_ID, false, false),
      ...positions.flatMap((p) => [meta(p.reserve, false, false), meta(p.oracle, false, false)])
    ],
    data: amountData(ix, amount)
  })

/** borrow: `positions` are the reserve and oracle of every obligation slot, in slot order, the borrowed one included. */
export const borrowInstruction = (keys: MarketKeys, amount: bigint, positions: ReadonlyArray<Position>) =>
  healthCheckedInstruction(IX_BORROW, keys, amount, positions)

/**
 * withdraw: at most `amount` of the supplied tokens back to `userToken` (an amount at or above the supply's worth
 * withdraws it all). `positions` as for borrow: the health check refuses (7228) a withdrawal that leaves the
 * borrows uncovered.
 */
export const withdrawInstruction = (keys: MarketKeys, amount: bigint, positions: ReadonlyArray<Position>) =>
  healthCheckedInstruction(IX_WITHDRAW, keys, amount, positions)

/** repay: at most `amount` from `userToken` against the owner's debt (an amount above the debt pays exactly the debt). */
export const repayInstruction = (keys: MarketKeys, amount: bigint) =>
  new TransactionInstruction({
    programId: keys.programId,
    keys: [
      meta(keys.owner, true, false), meta(obligationAddress(keys.programId, keys.owner), false, true), meta(reserveAddress(keys.programId, keys.mint), false, true),
      meta(keys.vault, false, true), meta(keys.userToken, false, true), meta(TOKEN_PROGRAM_ID, false, false)
    ],
    data: amountData(IX_REPAY, amount)
  })

/** flash_borrow: refused on chain unless a later flash_repay of the same reserve pays amount + fee. */
export const flashBorrowInstruction = (programId: PublicKey, mint: PublicKey, vault: PublicKey, destination: PublicKey, amount: bigint) =>
  new TransactionInstruction({
    programId,
    keys: [
      meta(reserveAddress(programId, mint), false, true), meta(vault, false, true), meta(destination, false, true), meta(TOKEN_PROGRAM_ID, false, false),
      meta(SYSVAR_INSTRUCTIONS_PUBKEY, false, false)
    ],
    data: amountData(IX_FLASH_BORROW, amount)
  })

/** flash_repay: `owner` signs the transfer of `amount` (at least the loan plus its fee) from `source`. */
export const flashRepayInstruction = (programId: PublicKey, owner: PublicKey, mint: PublicKey, vault: PublicKey, source: PublicKey, amount: bigint) =>
  new TransactionInstruction({
    programId,
    keys: [
      meta(owner, true, false), meta(reserveAddress(programId, mint), false, true), meta(vault, false, true), meta(source, false, true),
      meta(TOKEN_PROGRAM_ID, false, false)
    ],
    data: amountData(IX_FLASH_REPAY, amount)
  })
