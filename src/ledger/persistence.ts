// Keeps the ledger across restarts under <dataDir>/ledger/:
//   accounts.bin        litesvm's own snapshot (saveToFile / loadFromFile)
//   state.json          slot, recent blockhashes, counters, genesis hash, time of the save
//   transactions.jsonl  executed transactions, appended (one JSON line each), compacted when it grows
// Snapshot files are written to a temporary name and renamed, so a crash never leaves half a file.
import { randomBytes } from "node:crypto"
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import bs58 from "bs58"
import { LiteSVM } from "litesvm"
import type { LedgerSideState } from "./ledger.js"
import { DEFAULT_HISTORY_CAPACITY, TransactionHistory, type TransactionRecord } from "./transactionHistory.js"

export interface LoadedLedger {
  readonly svm: LiteSVM
  readonly side: LedgerSideState
  readonly history: TransactionHistory
  /** Wall-clock time of the save the side state came from (slots keep advancing while the ledger is down). */
  readonly savedAtMs: number | null
}

interface StateFile extends LedgerSideState {
  readonly savedAtMs: number
}

function configure(svm: LiteSVM): LiteSVM {
  // Blockhash age and duplicate signatures are checked by the ledger itself (150-slot window, own history):
  // litesvm only knows its single latest blockhash, and its history would bloat every snapshot.
  return svm.withBlockhashCheck(false).withSigverify(true).withTransactionHistory(0n)
}

function isStateFile(value: unknown): value is StateFile {
  if (typeof value !== "object" || value === null) return false
  const v = value as Record<string, unknown>
  return typeof v.slot === "number" && Array.isArray(v.blockhashes) && typeof v.genesisHash === "string" &&
    typeof v.transactionCount === "number" && typeof v.savedAtMs === "number"
}

function writeAtomically(path: string, write: (tmp: string) => void): void {
  const tmp = `${path}.tmp-${process.pid}`
  write(tmp)
  renameSync(tmp, path)
}

export class LedgerStore {
  readonly dir: string
  private readonly svmPath: string
  private readonly statePath: string
  private readonly historyPath: string
  private linesSinceCompaction = 0

  constructor(dataDir: string, private readonly capacity = DEFAULT_HISTORY_CAPACITY) {
    this.dir = join(dataDir, "ledger")
    this.svmPath = join(this.dir, "accounts.bin")
    this.statePath = join(this.dir, "state.json")
    this.historyPath = join(this.dir, "transactions.jsonl")
  }

  load(): LoadedLedger {
    mkdirSync(this.dir, { recursive: true })
    const history = new TransactionHistory(this.capacity)
    let state: StateFile | null = null
    if (existsSync(this.statePath)) {
      const parsed: unknown = JSON.parse(readFileSync(this.statePath, "utf8"))
      if (isStateFile(parsed)) state = parsed
    }
    if (state === null || !existsSync(this.svmPath)) {
      const svm = configure(new LiteSVM())
      const side = { slot: 0, blockhashes: [], transactionCount: 0, genesisHash: bs58.encode(randomBytes(32)) }
      return { svm, side, history, savedAtMs: null }
    }
    const svm = configure(LiteSVM.loadFromFile(this.svmPath))
    if (existsSync(this.historyPath)) {
      const lines = readFileSync(this.historyPath, "utf8").split("\n")
      history.restore(this.parseLines(lines))
      this.linesSinceCompaction = lines.length
    }
    return { svm, side: state, history, savedAtMs: state.savedAtMs }
  }

  private *parseLines(lines: string[]): Generator<TransactionRecord> {
    for (const line of lines) {
      if (line.length === 0) continue
      try {
        yield JSON.parse(line) as TransactionRecord
      } catch {
        // A torn last line after a crash: everything before it is intact.
      }
    }
  }

  save(svm: LiteSVM, side: LedgerSideState, history: TransactionHistory): void {
    mkdirSync(this.dir, { recursive: true })
    const unsaved = history.takeUnsaved()
    if (unsaved.length > 0) {
      appendFileSync(this.historyPath, unsaved.map((record) => JSON.stringify(record)).join("\n") + "\n")
      this.linesSinceCompaction += unsaved.length
    }
    if (this.linesSinceCompaction > 2 * this.capacity) this.compact(history)
    writeAtomically(this.svmPath, (tmp) => svm.saveToFile(tmp))
    const state: StateFile = { ...side, savedAtMs: Date.now() }
    writeAtomically(this.statePath, (tmp) => writeFileSync(tmp, JSON.stringify(state)))
  }

  private compact(history: TransactionHistory): void {
    const lines: string[] = []
    for (const record of history.all()) lines.push(JSON.stringify(record))
    writeAtomically(this.historyPath, (tmp) => writeFileSync(tmp, lines.join("\n") + "\n"))
    this.linesSinceCompaction = lines.length
  }
}
