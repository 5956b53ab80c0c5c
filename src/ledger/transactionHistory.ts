// Executed transactions by signature: what getSignatureStatuses and getTransaction answer from, and
// by address (every account key of the transaction, oldest first): what getSignaturesForAddress lists.
// Bounded (oldest dropped first) so a long benchmark cannot grow memory without limit.
import type { RpcTransactionError } from "./transactionErrors.js"
import { parseWireTransaction } from "./wireTransaction.js"

export interface TokenBalance {
  readonly accountIndex: number
  readonly mint: string
  readonly owner: string
  readonly programId: string
  readonly uiTokenAmount: { amount: string; decimals: number; uiAmount: number | null; uiAmountString: string }
}

export interface InnerInstructionSet {
  readonly index: number
  readonly instructions: Array<{ programIdIndex: number; accounts: number[]; data: string; stackHeight: number }>
}

export interface TransactionRecord {
  readonly signature: string
  readonly slot: number
  readonly blockTime: number
  readonly err: RpcTransactionError | null
  readonly fee: number
  readonly preBalances: number[]
  readonly postBalances: number[]
  readonly preTokenBalances: TokenBalance[]
  readonly postTokenBalances: TokenBalance[]
  readonly logMessages: string[]
  readonly innerInstructions: InnerInstructionSet[]
  readonly computeUnitsConsumed: number
  readonly returnData: { programId: string; data: [string, "base64"] } | null
  readonly loadedAddresses: { writable: string[]; readonly: string[] }
  /** base64 wire transaction; null for airdrops, whose transaction litesvm builds and signs internally. */
  readonly wire: string | null
  /** The accounts of a transaction without `wire` (an airdrop's recipient), for getSignaturesForAddress. */
  readonly accounts?: string[]
}

/** Every account key of a recorded transaction: static keys and those loaded from lookup tables. */
const addressesOf = (record: TransactionRecord): string[] => {
  if (record.wire === null) return record.accounts ?? []
  try {
    const keys = parseWireTransaction(Buffer.from(record.wire, "base64")).message.staticKeys
    return [...new Set([...keys, ...record.loadedAddresses.writable, ...record.loadedAddresses.readonly])]
  } catch {
    return []
  }
}

export interface SignaturePage {
  /** Newest first; starts after this signature (exclusive). */
  readonly before?: string
  /** Stops at this signature (exclusive). */
  readonly until?: string
  readonly limit: number
}

export const DEFAULT_HISTORY_CAPACITY = 100_000

export class TransactionHistory {
  private readonly bySignature = new Map<string, TransactionRecord>()
  /** Signatures per address, oldest first (the order transactions were executed). */
  private readonly byAddress = new Map<string, string[]>()
  private pending: TransactionRecord[] = []

  constructor(private readonly capacity = DEFAULT_HISTORY_CAPACITY) {}

  /** Restores records from disk without marking them as unsaved. */
  restore(records: Iterable<TransactionRecord>): void {
    for (const record of records) this.insert(record)
  }

  add(record: TransactionRecord): void {
    this.insert(record)
    this.pending.push(record)
  }

  get(signature: string): TransactionRecord | undefined {
    return this.bySignature.get(signature)
  }

  has(signature: string): boolean {
    return this.bySignature.has(signature)
  }

  get size(): number {
    return this.bySignature.size
  }

  /** Records added since the last call, for the append-only history file. */
  takeUnsaved(): TransactionRecord[] {
    const out = this.pending
    this.pending = []
    return out
  }

  all(): IterableIterator<TransactionRecord> {
    return this.bySignature.values()
  }

  /**
   * The address's transactions, newest first, as Solana's getSignaturesForAddress pages them: after
   * `before` (an unknown `before` gives nothing), down to `until` (exclusive), at most `limit`.
   */
  signaturesFor(address: string, page: SignaturePage): TransactionRecord[] {
    const signatures = this.byAddress.get(address) ?? []
    let start = signatures.length - 1
    if (page.before !== undefined) {
      start = signatures.lastIndexOf(page.before) - 1
      if (start < -1) return []
    }
    const out: TransactionRecord[] = []
    for (let i = start; i >= 0 && out.length < page.limit; i--) {
      const signature = signatures[i]!
      if (signature === page.until) break
      const record = this.bySignature.get(signature)
      if (record !== undefined) out.push(record)
    }
    return out
  }

  private insert(record: TransactionRecord): void {
    if (this.bySignature.has(record.signature)) return
    this.bySignature.set(record.signature, record)
    for (const address of addressesOf(record)) {
      const list = this.byAddress.get(address)
      if (list === undefined) this.byAddress.set(address, [record.signature])
      else list.push(record.signature)
    }
    if (this.bySignature.size > this.capacity) {
      const oldest = this.bySignature.entries().next()
      if (!oldest.done) this.evict(oldest.value[1])
    }
  }

  /** Drops the oldest record: it is the first entry of each of its addresses' lists. */
  private evict(record: TransactionRecord): void {
    this.bySignature.delete(record.signature)
    for (const address of addressesOf(record)) {
      const list = this.byAddress.get(address)
      if (list === undefined) continue
      const at = list[0] === record.signature ? 0 : list.indexOf(record.signature)
      if (at >= 0) list.splice(at, 1)
      if (list.length === 0) this.byAddress.delete(address)
    }
  }
}
