// RPC methods about transactions: sendTransaction, simulateTransaction, getSignatureStatuses,
// getTransaction, getSignaturesForAddress, getFeeForMessage, requestAirdrop, getRecentPrioritizationFees.
import { parseEncoding } from "./accounts.js"
import { executeTransaction, preflightFailureMessage, simulateTransaction, type SimulateOptions } from "./execution.js"
import { makeAirdropLimit } from "./airdropLimit.js"
import { feeForMessage } from "./fees.js"
import {
  InvalidParamsError,
  optionalConfig,
  requireNonNegativeInteger,
  requireStringArray,
  RpcError,
  type RpcHandler
} from "./jsonRpc.js"
import type { Ledger } from "./ledger.js"
import {
  checkMinContextSlot,
  context,
  decodeBinary,
  decodeTransactionParam,
  requirePubkey,
  requireSignature
} from "./rpcParams.js"
import type { RpcTransactionError } from "./transactionErrors.js"
import { parseTransactionEncoding, renderTransaction } from "./transactionView.js"
import { parseMessage, WireFormatError, type ParsedTransaction } from "./wireTransaction.js"

const SIGNATURE_FAILURE = "Transaction signature verification failure"

function preflightError(err: RpcTransactionError, logs: string[], unitsConsumed: number): RpcError {
  if (err === "SignatureFailure") return new RpcError(-32003, SIGNATURE_FAILURE)
  return new RpcError(-32002, preflightFailureMessage(err), {
    accounts: null,
    err,
    innerInstructions: null,
    logs,
    replacementBlockhash: null,
    returnData: null,
    unitsConsumed
  })
}

// litesvm's wrapper asserts full signatures with a thrown kit error before the runtime sees the bytes.
function guardSignatures<T>(run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof RpcError) throw error
    if (error instanceof Error && /signature/i.test(error.message)) throw new RpcError(-32003, SIGNATURE_FAILURE)
    throw error
  }
}

function simulateOptions(config: Record<string, unknown>): SimulateOptions {
  const sigVerify = config.sigVerify === true
  const replaceRecentBlockhash = config.replaceRecentBlockhash === true
  if (sigVerify && replaceRecentBlockhash) {
    throw new InvalidParamsError("sigVerify may not be used with replaceRecentBlockhash")
  }
  let accounts: SimulateOptions["accounts"] = null
  if (config.accounts !== undefined && config.accounts !== null) {
    const { addresses, encoding } = config.accounts as { addresses?: unknown; encoding?: unknown }
    const list = requireStringArray([addresses], 0, "accounts.addresses", 100)
    list.forEach((_, index) => requirePubkey(list, index))
    accounts = { addresses: list, encoding: parseEncoding(encoding, "base64") }
  }
  return { sigVerify, replaceRecentBlockhash, innerInstructions: config.innerInstructions === true, accounts }
}

export function transactionMethods(ledger: Ledger): Array<[string, RpcHandler]> {
  const airdrops = makeAirdropLimit()
  const send = (parsed: ParsedTransaction, skipPreflight: boolean): string => {
    const signature = parsed.signatures[0]
    if (!skipPreflight) {
      // Preflight as a validator runs it: a transaction that would fail is refused and costs nothing.
      const preflight = guardSignatures(() =>
        simulateTransaction(ledger, parsed, { sigVerify: true, replaceRecentBlockhash: false, innerInstructions: false, accounts: null })
      )
      if (preflight.err !== null) throw preflightError(preflight.err, preflight.logs, preflight.unitsConsumed)
    }
    const outcome = guardSignatures(() => executeTransaction(ledger, parsed))
    if (outcome.kind === "processed") return signature
    // A rebroadcast of a landed transaction is harmless (the validator deduplicates it silently).
    if (outcome.err === "AlreadyProcessed" && skipPreflight) return signature
    throw preflightError(outcome.err, outcome.logs, outcome.unitsConsumed)
  }

  return [
    ["sendTransaction", (params) => {
      const config = optionalConfig(params, 1)
      checkMinContextSlot(ledger, config)
      const parsed = decodeTransactionParam(params[0], config.encoding)
      return send(parsed, config.skipPreflight === true)
    }],
    ["simulateTransaction", (params) => {
      const config = optionalConfig(params, 1)
      checkMinContextSlot(ledger, config)
      const options = simulateOptions(config)
      const parsed = decodeTransactionParam(params[0], config.encoding)
      const value = guardSignatures(() => simulateTransaction(ledger, parsed, options))
      return { context: context(ledger), value }
    }],
    ["getSignatureStatuses", (params) => {
      const signatures = requireStringArray(params, 0, "signatures", 256).map(requireSignature)
      const value = signatures.map((signature) => {
        const record = ledger.history.get(signature)
        if (record === undefined) return null
        return {
          confirmationStatus: "finalized",
          confirmations: null,
          err: record.err,
          slot: record.slot,
          status: record.err === null ? { Ok: null } : { Err: record.err }
        }
      })
      return { context: context(ledger), value }
    }],
    ["getTransaction", (params) => {
      const signature = requireSignature(params[0])
      const raw = params[1]
      const config = typeof raw === "string" ? { encoding: raw } : optionalConfig(params, 1)
      if (config.commitment === "processed") throw new InvalidParamsError("Method does not support commitment below `confirmed`")
      const encoding = parseTransactionEncoding(config.encoding)
      const max = config.maxSupportedTransactionVersion
      if (max !== undefined && max !== null && max !== 0) {
        throw new InvalidParamsError("Invalid params: maxSupportedTransactionVersion must be 0")
      }
      const record = ledger.history.get(signature)
      return record === undefined ? null : renderTransaction(record, encoding, max === 0 ? 0 : null)
    }],
    ["getSignaturesForAddress", (params) => {
      const address = requirePubkey(params, 0)
      const config = optionalConfig(params, 1)
      checkMinContextSlot(ledger, config)
      if (config.commitment === "processed") throw new InvalidParamsError("Method does not support commitment below `confirmed`")
      const limit = config.limit ?? 1000
      if (typeof limit !== "number" || !Number.isInteger(limit) || limit < 1 || limit > 1000) {
        throw new InvalidParamsError("Invalid limit; max 1000")
      }
      const before = config.before === undefined || config.before === null ? undefined : requireSignature(config.before)
      const until = config.until === undefined || config.until === null ? undefined : requireSignature(config.until)
      return ledger.history
        .signaturesFor(address, { limit, ...(before === undefined ? {} : { before }), ...(until === undefined ? {} : { until }) })
        .map((record) => ({
          signature: record.signature,
          slot: record.slot,
          err: record.err,
          memo: null,
          blockTime: record.blockTime,
          confirmationStatus: "finalized"
        }))
    }],
    ["getFeeForMessage", (params) => {
      if (typeof params[0] !== "string") throw new InvalidParamsError("Invalid params: message must be a base64 string")
      const bytes = decodeBinary(params[0], "base64")
      let message
      try {
        message = parseMessage(bytes)
      } catch (error) {
        if (error instanceof WireFormatError) throw new InvalidParamsError(`invalid message: ${error.message}`)
        throw error
      }
      const valid = ledger.window.isValid(message.recentBlockhash, ledger.slot) || ledger.isValidNonceTransaction(message)
      return { context: context(ledger), value: valid ? feeForMessage(message) : null }
    }],
    ["requestAirdrop", (params) => {
      const recipient = requirePubkey(params, 0)
      const amount = BigInt(requireNonNegativeInteger(params, 1, "lamports"))
      airdrops.admit(amount)
      try {
        return ledger.airdrop(recipient, amount)
      } catch (error) {
        airdrops.refund(amount)
        throw error
      }
    }],
    ["getRecentPrioritizationFees", (params) => {
      if (params[0] !== undefined && params[0] !== null) {
        const addresses = requireStringArray(params, 0, "addresses", 128)
        addresses.forEach((_, index) => requirePubkey(addresses, index))
      }
      return ledger.priorityFees.recent(ledger.slot)
    }]
  ]
}
