// Executes and simulates wire transactions on litesvm and turns the outcome into validator-shaped results.
// litesvm's own blockhash check is off (it only accepts its single latest blockhash); the 150-slot window
// is checked here instead, as a cluster does. Duplicate signatures are refused from our own history.
import type { SignatureBytes, Transaction, TransactionMessageBytes } from "@solana/kit"
import bs58 from "bs58"
import { FailedTransactionMetadata, type TransactionMetadata } from "litesvm"
import { asBytes, encodeAccount, type AccountEncoding } from "./accounts.js"
import { computeBudgetOf, feeForMessage } from "./fees.js"
import { isTokenProgram } from "./tokenAccounts.js"
import { type Ledger, LookupFailure, type AccountKeys } from "./ledger.js"
import { describeTransactionError, transactionErrorToJson, type RpcTransactionError } from "./transactionErrors.js"
import type { InnerInstructionSet, TransactionRecord } from "./transactionHistory.js"
import { isWritableStaticKey, parseWireTransaction, type ParsedTransaction } from "./wireTransaction.js"

/**
 * litesvm's input, from the bytes already parsed and sanitized: kit's own decoder would turn every
 * account key into base58 again (the most expensive step of a send). Signers are the first
 * `numRequiredSignatures` static keys; their signatures come right before the message.
 */
function kitTransaction(parsed: ParsedTransaction): Transaction {
  const count = parsed.message.header.numRequiredSignatures
  const first = parsed.messageOffset - 64 * count
  const signatures: Record<string, SignatureBytes> = {}
  parsed.message.staticKeys.slice(0, count).forEach((key, i) => {
    signatures[key] = parsed.wire.subarray(first + 64 * i, first + 64 * (i + 1)) as SignatureBytes
  })
  return { messageBytes: parsed.wire.subarray(parsed.messageOffset) as unknown as TransactionMessageBytes, signatures } as Transaction
}

export type SendOutcome =
  | { readonly kind: "processed"; readonly record: TransactionRecord }
  | { readonly kind: "rejected"; readonly err: RpcTransactionError; readonly logs: string[]; readonly unitsConsumed: number }

function innerInstructionsOf(meta: TransactionMetadata): InnerInstructionSet[] {
  const sets: InnerInstructionSet[] = []
  meta.innerInstructions().forEach((list, index) => {
    if (list.length === 0) return
    sets.push({
      index,
      instructions: list.map((inner) => {
        const ix = inner.instruction()
        return {
          programIdIndex: ix.programIdIndex(),
          accounts: Array.from(ix.accounts()),
          data: bs58.encode(ix.data()),
          stackHeight: inner.stackHeight()
        }
      })
    })
  })
  return sets
}

function returnDataOf(meta: TransactionMetadata): TransactionRecord["returnData"] {
  const data = meta.returnData().data()
  if (data.length === 0) return null
  return { programId: bs58.encode(meta.returnData().programId()), data: [Buffer.from(data).toString("base64"), "base64"] }
}

type KeysOrError = { readonly keys: AccountKeys; readonly err?: undefined } | { readonly keys?: undefined; readonly err: RpcTransactionError }

function loadKeys(ledger: Ledger, parsed: ParsedTransaction): KeysOrError {
  try {
    return { keys: ledger.accountKeys(parsed.message, (index) => isWritableStaticKey(parsed.message, index)) }
  } catch (error) {
    if (error instanceof LookupFailure) return { err: error.errorName }
    throw error
  }
}

function blockhashOk(ledger: Ledger, parsed: ParsedTransaction): boolean {
  return ledger.window.isValid(parsed.message.recentBlockhash, ledger.slot) || ledger.isValidNonceTransaction(parsed.message)
}

export function executeTransaction(ledger: Ledger, parsed: ParsedTransaction): SendOutcome {
  const reject = (err: RpcTransactionError, logs: string[] = [], unitsConsumed = 0): SendOutcome => ({
    kind: "rejected",
    err,
    logs,
    unitsConsumed
  })
  const signature = parsed.signatures[0]
  if (ledger.history.has(signature)) return reject("AlreadyProcessed")
  if (!blockhashOk(ledger, parsed)) return reject("BlockhashNotFound")
  const { keys, err: keysErr } = loadKeys(ledger, parsed)
  if (keys === undefined) return reject(keysErr)
  const payer = keys.all[0]
  const preBalances = keys.all.map((key) => ledger.balanceOf(key))
  const touchesTokens = keys.all.some(isTokenProgram)
  const preTokenBalances = touchesTokens ? ledger.tokenBalances(keys.all) : []

  const result = ledger.svm.sendTransaction(kitTransaction(parsed))
  const failed = result instanceof FailedTransactionMetadata
  const meta = failed ? result.meta() : result
  const err = failed ? transactionErrorToJson(result) : null
  // A failed transaction is committed (and charged its fee) only when it got far enough to pay;
  // otherwise (bad signature, no funds for fee, ...) a validator drops it and so do we.
  if (err !== null && ledger.balanceOf(payer) === preBalances[0]) return reject(err, meta.logs(), Number(meta.computeUnitsConsumed()))

  const record: TransactionRecord = {
    signature,
    slot: ledger.slot,
    blockTime: Math.floor(Date.now() / 1000),
    err,
    fee: feeForMessage(parsed.message),
    preBalances,
    postBalances: keys.all.map((key) => ledger.balanceOf(key)),
    preTokenBalances,
    postTokenBalances: touchesTokens ? ledger.tokenBalances(keys.all) : [],
    logMessages: meta.logs(),
    innerInstructions: innerInstructionsOf(meta),
    computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    returnData: returnDataOf(meta),
    loadedAddresses: { writable: keys.loadedWritable, readonly: keys.loadedReadonly },
    wire: Buffer.from(parsed.wire).toString("base64")
  }
  ledger.priorityFees.record(ledger.slot, computeBudgetOf(parsed.message).microLamportsPerUnit)
  ledger.recordTransaction(record, keys.writable, touchesTokens)
  return { kind: "processed", record }
}

export interface SimulateOptions {
  readonly sigVerify: boolean
  readonly replaceRecentBlockhash: boolean
  readonly innerInstructions: boolean
  readonly accounts: { readonly addresses: string[]; readonly encoding: AccountEncoding } | null
}

function withBlockhash(parsed: ParsedTransaction, blockhash: string): ParsedTransaction {
  const wire = Uint8Array.from(parsed.wire)
  wire.set(bs58.decode(blockhash), parsed.messageOffset + parsed.message.blockhashOffset)
  return parseWireTransaction(wire)
}

/** The `value` of a simulateTransaction answer. */
export interface SimulationValue {
  readonly err: RpcTransactionError | null
  readonly logs: string[]
  readonly unitsConsumed: number
  readonly accounts: unknown
  readonly innerInstructions: InnerInstructionSet[] | null
  readonly replacementBlockhash: { blockhash: string; lastValidBlockHeight: number } | null
  readonly returnData: TransactionRecord["returnData"]
  readonly fee: number
  readonly loadedAccountsDataSize: number
}

export function simulateTransaction(ledger: Ledger, original: ParsedTransaction, options: SimulateOptions): SimulationValue {
  const latest = ledger.window.latestEntry()
  const parsed = options.replaceRecentBlockhash ? withBlockhash(original, latest.blockhash) : original
  const base = {
    accounts: null,
    innerInstructions: null,
    replacementBlockhash: options.replaceRecentBlockhash
      ? { blockhash: latest.blockhash, lastValidBlockHeight: ledger.window.lastValidBlockHeight() }
      : null,
    returnData: null,
    fee: feeForMessage(parsed.message),
    loadedAccountsDataSize: 0
  }
  const fail = (err: RpcTransactionError, logs: string[] = [], unitsConsumed = 0): SimulationValue => ({ ...base, err, logs, unitsConsumed })
  if (!options.replaceRecentBlockhash && !blockhashOk(ledger, parsed)) return fail("BlockhashNotFound")
  const { keys, err: keysErr } = loadKeys(ledger, parsed)
  if (keys === undefined) return fail(keysErr)

  const svm = ledger.svm
  if (!options.sigVerify) svm.withSigverify(false)
  let result
  try {
    result = svm.simulateTransaction(kitTransaction(parsed))
  } finally {
    if (!options.sigVerify) svm.withSigverify(true)
  }
  if (result instanceof FailedTransactionMetadata) {
    const meta = result.meta()
    return {
      ...fail(transactionErrorToJson(result), meta.logs(), Number(meta.computeUnitsConsumed())),
      innerInstructions: options.innerInstructions ? innerInstructionsOf(meta) : null,
      returnData: returnDataOf(meta)
    }
  }
  const meta = result.meta()
  let accounts: unknown = null
  if (options.accounts !== null) {
    const post = new Map(result.postAccounts().map((account) => [String(account.address), account]))
    accounts = options.accounts.addresses.map((key) => {
      const updated = post.get(key)
      const raw = updated === undefined
        ? ledger.readAccount(key)
        : { lamports: updated.lamports, owner: updated.programAddress, executable: updated.executable, data: asBytes(updated.data) }
      return raw === null ? null : encodeAccount(raw, options.accounts?.encoding ?? "base64", null, (k) => ledger.readAccount(k))
    })
  }
  return {
    ...base,
    err: null,
    logs: meta.logs(),
    unitsConsumed: Number(meta.computeUnitsConsumed()),
    accounts,
    innerInstructions: options.innerInstructions ? innerInstructionsOf(meta) : null,
    returnData: returnDataOf(meta)
  }
}

/** The message of the validator's -32002 preflight error. */
export function preflightFailureMessage(err: RpcTransactionError): string {
  return `Transaction simulation failed: ${describeTransactionError(err)}`
}
