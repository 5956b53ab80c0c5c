// Executed transactions by signature: what getSignatureStatuses and getTransaction answer from.
// Bounded (oldest dropped first) so a long benchmark cannot grow memory without limit.
import type { RpcTransactionError } from "./transactionErrors.js"

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
}

export const DEFAULT_HISTORY_CAPACITY = 100_000

export class TransactionHistory {
  private readonly bySignature = new Map<string, TransactionRecord>()
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

  private insert(record: TransactionRecord): void {
    this.bySignature.set(record.signature, record)
    if (this.bySignature.size > this.capacity) {
      const oldest = this.bySignature.keys().next()
      if (!oldest.done) this.bySignature.delete(oldest.value)
    }
  }
}
