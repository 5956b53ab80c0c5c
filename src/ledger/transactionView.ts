// Renders a stored transaction the way getTransaction does, in json, jsonParsed, base64 and base58.
import bs58 from "bs58"
import { RpcError } from "./jsonRpc.js"
import type { InnerInstructionSet, TransactionRecord } from "./transactionHistory.js"
import {
  isWritableStaticKey,
  parseWireTransaction,
  type CompiledInstruction,
  type ParsedTransaction
} from "./wireTransaction.js"

export type TransactionEncoding = "json" | "jsonParsed" | "base64" | "base58"

const SYSTEM_PROGRAM_ID = "11111111111111111111111111111111"

interface ViewInstruction {
  readonly programIdIndex: number
  readonly accounts: number[]
  readonly data: string
  readonly stackHeight: number | null
}

function parsedInstruction(ix: ViewInstruction, keys: readonly string[]): unknown {
  const programId = keys[ix.programIdIndex]
  const accounts = ix.accounts.map((index) => keys[index])
  const data = bs58.decode(ix.data)
  // A system transfer is the one instruction the service reads back parsed; others stay partially decoded.
  if (programId === SYSTEM_PROGRAM_ID && data.length === 12 && data[0] === 2 && data[1] === 0 && data[2] === 0 && data[3] === 0) {
    const lamports = Number(Buffer.from(data).readBigUInt64LE(4))
    return {
      program: "system",
      programId,
      parsed: { info: { destination: accounts[1], lamports, source: accounts[0] }, type: "transfer" },
      stackHeight: ix.stackHeight
    }
  }
  return { accounts, data: ix.data, programId, stackHeight: ix.stackHeight }
}

function topLevelInstructions(instructions: CompiledInstruction[]): ViewInstruction[] {
  return instructions.map((ix) => ({
    programIdIndex: ix.programIdIndex,
    accounts: ix.accounts,
    data: bs58.encode(ix.data),
    stackHeight: null
  }))
}

function jsonTransaction(parsed: ParsedTransaction, keys: readonly string[], jsonParsed: boolean): unknown {
  const { message } = parsed
  const instructions = topLevelInstructions(message.instructions)
  const staticCount = message.staticKeys.length
  const accountKeys = jsonParsed
    ? keys.map((pubkey, index) => ({
        pubkey,
        signer: index < message.header.numRequiredSignatures,
        writable: index < staticCount ? isWritableStaticKey(message, index) : false,
        source: index < staticCount ? "transaction" : "lookupTable"
      }))
    : message.staticKeys
  const body: Record<string, unknown> = {
    accountKeys,
    header: message.header,
    instructions: jsonParsed ? instructions.map((ix) => parsedInstruction(ix, keys)) : instructions,
    recentBlockhash: message.recentBlockhash
  }
  if (jsonParsed) delete body.header
  if (message.version === 0) body.addressTableLookups = message.lookups
  return { message: body, signatures: parsed.signatures }
}

function innerView(sets: InnerInstructionSet[], keys: readonly string[], jsonParsed: boolean): unknown {
  if (!jsonParsed) return sets
  return sets.map((set) => ({ index: set.index, instructions: set.instructions.map((ix) => parsedInstruction(ix, keys)) }))
}

export function parseTransactionEncoding(value: unknown): TransactionEncoding {
  if (value === undefined || value === null) return "json"
  if (value === "json" || value === "jsonParsed" || value === "base64" || value === "base58") return value
  if (value === "binary") return "base58"
  throw new RpcError(-32602, `Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``)
}

export function renderTransaction(
  record: TransactionRecord,
  encoding: TransactionEncoding,
  maxSupportedVersion: number | null
): unknown {
  if (record.wire === null) return null
  const wire = Buffer.from(record.wire, "base64")
  const parsed = parseWireTransaction(wire)
  const version = parsed.message.version
  if (version !== "legacy" && (maxSupportedVersion === null || maxSupportedVersion < version)) {
    throw new RpcError(
      -32015,
      `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`
    )
  }
  const keys = [...parsed.message.staticKeys, ...record.loadedAddresses.writable, ...record.loadedAddresses.readonly]
  const jsonParsed = encoding === "jsonParsed"
  let transaction: unknown
  if (encoding === "base64") transaction = [record.wire, "base64"]
  else if (encoding === "base58") transaction = [bs58.encode(wire), "base58"]
  else transaction = jsonTransaction(parsed, keys, jsonParsed)
  const meta: Record<string, unknown> = {
    computeUnitsConsumed: record.computeUnitsConsumed,
    err: record.err,
    fee: record.fee,
    innerInstructions: innerView(record.innerInstructions, keys, jsonParsed),
    loadedAddresses: record.loadedAddresses,
    logMessages: record.logMessages,
    postBalances: record.postBalances,
    postTokenBalances: record.postTokenBalances,
    preBalances: record.preBalances,
    preTokenBalances: record.preTokenBalances,
    rewards: [],
    status: record.err === null ? { Ok: null } : { Err: record.err }
  }
  if (record.returnData !== null) meta.returnData = record.returnData
  if (jsonParsed) delete meta.loadedAddresses
  const result: Record<string, unknown> = { blockTime: record.blockTime, meta, slot: record.slot, transaction }
  if (maxSupportedVersion !== null) result.version = version
  return result
}
