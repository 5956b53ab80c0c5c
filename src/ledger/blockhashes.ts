// The recent-blockhash window of a validator: a blockhash stays usable for 150 slots after the slot
// that produced it (MAX_PROCESSING_AGE), after which transactions naming it fail "Blockhash not found".

/** Blockhashes older than this many slots are expired, as on a real cluster. */
export const MAX_PROCESSING_AGE = 150

export interface BlockhashEntry {
  readonly blockhash: string
  readonly slot: number
}

export class BlockhashWindow {
  // Insertion-ordered, so the oldest entry is always first and pruning is O(expired).
  private readonly slotByHash = new Map<string, number>()
  private latest: BlockhashEntry

  constructor(initial: readonly BlockhashEntry[]) {
    if (initial.length === 0) throw new Error("BlockhashWindow needs at least one blockhash")
    for (const entry of initial) this.slotByHash.set(entry.blockhash, entry.slot)
    this.latest = initial[initial.length - 1]
  }

  push(entry: BlockhashEntry): void {
    this.slotByHash.set(entry.blockhash, entry.slot)
    this.latest = entry
    for (const [hash, slot] of this.slotByHash) {
      if (entry.slot - slot <= MAX_PROCESSING_AGE) break
      this.slotByHash.delete(hash)
    }
  }

  latestEntry(): BlockhashEntry {
    return this.latest
  }

  isValid(blockhash: string, currentSlot: number): boolean {
    const slot = this.slotByHash.get(blockhash)
    return slot !== undefined && currentSlot - slot <= MAX_PROCESSING_AGE
  }

  /** The last block height at which a transaction using the latest blockhash can still land. */
  lastValidBlockHeight(): number {
    return this.latest.slot + MAX_PROCESSING_AGE
  }

  entries(): BlockhashEntry[] {
    return Array.from(this.slotByHash, ([blockhash, slot]) => ({ blockhash, slot }))
  }
}
