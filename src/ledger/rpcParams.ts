// Parameter decoding shared by the RPC method groups: public keys, signatures, encoded transactions.
import bs58 from "bs58"
import { InvalidParamsError, RpcError } from "./jsonRpc.js"
import type { Ledger } from "./ledger.js"
import { parseWireTransaction, WireFormatError, type ParsedTransaction } from "./wireTransaction.js"

export function requirePubkey(params: unknown[], index: number): string {
  const value = params[index]
  if (typeof value !== "string") throw new InvalidParamsError("Invalid params: expected a base58 public key string")
  let bytes: Uint8Array
  try {
    bytes = bs58.decode(value)
  } catch {
    throw new InvalidParamsError("Invalid param: Invalid")
  }
  if (bytes.length !== 32) throw new InvalidParamsError("Invalid param: WrongSize")
  return value
}

export function isSignature(value: string): boolean {
  try {
    return bs58.decode(value).length === 64
  } catch {
    return false
  }
}

export function requireSignature(value: unknown): string {
  if (typeof value !== "string" || !isSignature(value)) throw new InvalidParamsError("Invalid param: Invalid")
  return value
}

const BASE64_PATTERN = /^[A-Za-z0-9+/]*={0,2}$/

export function decodeBinary(text: string, encoding: unknown): Uint8Array {
  if (encoding === "base64") {
    if (text.length % 4 !== 0 || !BASE64_PATTERN.test(text)) throw new InvalidParamsError("invalid base64 encoding: InvalidByte")
    return Buffer.from(text, "base64")
  }
  if (encoding === undefined || encoding === null || encoding === "base58") {
    try {
      return bs58.decode(text)
    } catch {
      throw new InvalidParamsError("invalid base58 encoding: InvalidCharacter")
    }
  }
  throw new InvalidParamsError(`Invalid params: unsupported encoding: ${String(encoding)}. Supported encodings: base58, base64`)
}

/** Decodes an encoded transaction parameter; anything that is not a sane transaction is -32602. */
export function decodeTransactionParam(text: unknown, encoding: unknown): ParsedTransaction {
  if (typeof text !== "string") throw new InvalidParamsError("Invalid params: transaction must be an encoded string")
  const wire = decodeBinary(text, encoding)
  try {
    return parseWireTransaction(wire)
  } catch (error) {
    if (!(error instanceof WireFormatError)) throw error
    const message = error.message.startsWith("invalid transaction") || error.message.startsWith("transaction too large")
      ? error.message
      : `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${error.message}`
    throw new InvalidParamsError(message)
  }
}

export function context(ledger: Ledger): { apiVersion: string; slot: number } {
  return { apiVersion: LEDGER_VERSION, slot: ledger.slot }
}

export function checkMinContextSlot(ledger: Ledger, config: Record<string, unknown>): void {
  const min = config.minContextSlot
  if (typeof min === "number" && min > ledger.slot) {
    throw new RpcError(-32016, "Minimum context slot has not been reached", { contextSlot: ledger.slot })
  }
}

/** The solana-core version this ledger imitates in getVersion and response contexts. */
export const LEDGER_VERSION = "2.2.0"
