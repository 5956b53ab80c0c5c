// The ledger's state: one litesvm instance plus what a validator keeps beside its accounts
// (slot, recent blockhashes, signature history, prioritization fees, the token-owner index).
// Commitment: there is a single node and no forks, so a transaction is final the moment it
// executes; every status is reported "finalized" (confirmations null).
import { address, lamports as toLamports } from "@solana/kit"
import bs58 from "bs58"
import { Clock, LiteSVM } from "litesvm"
import { makeAccountReads } from "./accountReads.js"
import { asBytes, type RawAccount } from "./accounts.js"
import { BlockhashWindow } from "./blockhashes.js"
import { PriorityFeeTracker } from "./fees.js"
import { RpcError } from "./jsonRpc.js"
import {
  decodeMint,
  decodeTokenAccount,
  isTokenProgram,
  TOKEN_2022_PROGRAM_ID,
  TOKEN_PROGRAM_ID,
  tokenAccountOwner,
  uiTokenAmount
} from "./tokenAccounts.js"
import { TokenOwnerIndex } from "./tokenOwnerIndex.js"
import { TransactionHistory, type TokenBalance, type TransactionRecord } from "./transactionHistory.js"
import type { ParsedMessage } from "./wireTransaction.js"

export const SLOTS_PER_EPOCH = 432_000
const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111"
const LOOKUP_TABLE_PROGRAM_ID = "AddressLookupTab1e1111111111111111111111111"
const LOOKUP_TABLE_META_SIZE = 56

export interface LedgerSideState {
  readonly slot: number
  readonly blockhashes: Array<{ blockhash: string; slot: number }>
  readonly transactionCount: number
  readonly genesisHash: string
}

export interface LedgerListener {
  onTransaction?(record: TransactionRecord, writableKeys: readonly string[]): void
  onSlot?(slot: number): void
}

export interface AccountKeys {
  readonly all: string[]
  readonly writable: string[]
  readonly loadedWritable: string[]
  readonly loadedReadonly: string[]
}

export class Ledger {
  slot: number
  transactionCount: number
  readonly genesisHash: string
  readonly window: BlockhashWindow
  readonly history: TransactionHistory
  readonly priorityFees = new PriorityFeeTracker()
  readonly tokenOwners = new TokenOwnerIndex()
  readonly listeners = new Set<LedgerListener>()
  /** Oracle feeds an operator posted with an explicit publish time: the price refresher leaves them alone (oracleMethods.ts). */
  readonly stalledFeeds = new Set<string>()
  /** Set on every state change; the persistence loop clears it when it saves. */
  dirty = false
  private readonly reads: ReturnType<typeof makeAccountReads>

  constructor(
    readonly svm: LiteSVM,
    side: LedgerSideState,
    history: TransactionHistory
  ) {
    this.slot = side.slot
    this.transactionCount = side.transactionCount
    this.genesisHash = side.genesisHash
    this.history = history
    this.reads = makeAccountReads(svm)
    const blockhashes = side.blockhashes.length > 0 ? side.blockhashes : [{ blockhash: svm.latestBlockhash(), slot: side.slot }]
    this.window = new BlockhashWindow(blockhashes)
    for (const program of [TOKEN_PROGRAM_ID, TOKEN_2022_PROGRAM_ID]) {
      for (const account of svm.getProgramAccounts(address(program))) {
        this.tokenOwners.update(account.address, tokenAccountOwner(asBytes(account.data)))
      }
    }
    this.syncClock()
  }

  sideState(): LedgerSideState {
    return {
      slot: this.slot,
      blockhashes: this.window.entries(),
      transactionCount: this.transactionCount,
      genesisHash: this.genesisHash
    }
  }

  /** Moves to a later slot: a fresh blockhash (from litesvm, so the runtime knows it) and a new Clock. */
  advanceTo(slot: number): void {
    if (slot <= this.slot) return
    this.slot = slot
    this.svm.expireBlockhash()
    this.window.push({ blockhash: this.svm.latestBlockhash(), slot })
    this.syncClock()
    for (const listener of this.listeners) listener.onSlot?.(slot)
  }

  // Programs read slot and unix_timestamp from the Clock sysvar (escrow deadlines depend on it).
  private syncClock(): void {
    const epoch = BigInt(Math.floor(this.slot / SLOTS_PER_EPOCH))
    const now = BigInt(Math.floor(Date.now() / 1000))
    this.svm.setClock(new Clock(BigInt(this.slot), now, epoch, epoch + 1n, now))
  }

  readAccount(key: string): RawAccount | null {
    return this.reads.readAccount(key)
  }

  balanceOf(key: string): number {
    return this.reads.balanceOf(key)
  }

  /** Airdrops and checks that the balance really grew: litesvm fails silently on very large amounts. */
  airdrop(recipient: string, amount: bigint): string {
    const before = BigInt(this.balanceOf(recipient))
    const result = this.svm.airdrop(address(recipient), toLamports(amount))
    const after = BigInt(this.balanceOf(recipient))
    if (result === null || "err" in result || after - before !== amount) {
      throw new RpcError(-32600, "airdrop request failed. This can happen when the rate limit is reached.")
    }
    const signature = bs58.encode(result.signature())
    this.recordTransaction(
      {
        signature,
        slot: this.slot,
        blockTime: Math.floor(Date.now() / 1000),
        err: null,
        fee: 0,
        preBalances: [Number(before)],
        postBalances: [Number(after)],
        preTokenBalances: [],
        postTokenBalances: [],
        logMessages: result.logs(),
        innerInstructions: [],
        computeUnitsConsumed: Number(result.computeUnitsConsumed()),
        returnData: null,
        loadedAddresses: { writable: [], readonly: [] },
        wire: null,
        accounts: [recipient]
      },
      [recipient]
    )
    return signature
  }

  /**
   * `touchesTokens`: a token program is among the transaction's keys. Only then can a token account's
   * owner change (token accounts are written by their program alone), so only then is the index updated.
   */
  recordTransaction(record: TransactionRecord, writableKeys: readonly string[], touchesTokens = true): void {
    this.history.add(record)
    this.transactionCount++
    this.dirty = true
    if (touchesTokens) {
      for (const key of writableKeys) {
        const account = this.readAccount(key)
        this.tokenOwners.update(key, account !== null && isTokenProgram(account.owner) ? tokenAccountOwner(account.data) : null)
      }
    }
    for (const listener of this.listeners) listener.onTransaction?.(record, writableKeys)
  }

  /** Static keys plus the keys loaded from address lookup tables, in the runtime's order. */
  accountKeys(message: ParsedMessage, isWritableStatic: (index: number) => boolean): AccountKeys {
    const loadedWritable: string[] = []
    const loadedReadonly: string[] = []
    for (const lookup of message.lookups) {
      const table = this.readAccount(lookup.accountKey)
      if (table === null || table.owner !== LOOKUP_TABLE_PROGRAM_ID) {
        throw new LookupFailure("AddressLookupTableNotFound")
      }
      const addressAt = (index: number): string => {
        const start = LOOKUP_TABLE_META_SIZE + index * 32
        if (start + 32 > table.data.length) throw new LookupFailure("InvalidAddressLookupTableIndex")
        return bs58.encode(table.data.subarray(start, start + 32))
      }
      for (const index of lookup.writableIndexes) loadedWritable.push(addressAt(index))
      for (const index of lookup.readonlyIndexes) loadedReadonly.push(addressAt(index))
    }
    const writable = message.staticKeys.filter((_, index) => isWritableStatic(index)).concat(loadedWritable)
    return { all: [...message.staticKeys, ...loadedWritable, ...loadedReadonly], writable, loadedWritable, loadedReadonly }
  }

  /** A durable-nonce transaction names its nonce account's stored value instead of a recent blockhash. */
  isValidNonceTransaction(message: ParsedMessage): boolean {
    const first = message.instructions[0]
    if (first === undefined || message.staticKeys[first.programIdIndex] !== SYSTEM_PROGRAM_ID) return false
    if (first.data.length < 4 || first.data[0] !== 4 || first.data[1] !== 0 || first.accounts.length === 0) return false
    const nonceKey = message.staticKeys[first.accounts[0]]
    const nonce = nonceKey === undefined ? null : this.readAccount(nonceKey)
    if (nonce === null || nonce.owner !== SYSTEM_PROGRAM_ID || nonce.data.length < 72) return false
    return bs58.encode(nonce.data.subarray(40, 72)) === message.recentBlockhash
  }

  tokenBalances(keys: readonly string[]): TokenBalance[] {
    const out: TokenBalance[] = []
    keys.forEach((key, accountIndex) => {
      const account = this.readAccount(key)
      if (account === null || !isTokenProgram(account.owner)) return
      const token = decodeTokenAccount(account.data)
      if (token === null) return
      const mintAccount = this.readAccount(token.mint)
      const mint = mintAccount === null ? null : decodeMint(mintAccount.data)
      if (mint === null) return
      out.push({
        accountIndex,
        mint: token.mint,
        owner: token.owner,
        programId: account.owner,
        uiTokenAmount: uiTokenAmount(token.amount, mint.decimals)
      })
    })
    return out
  }
}

export class LookupFailure extends Error {
  constructor(readonly errorName: string) {
    super(errorName)
  }
}

