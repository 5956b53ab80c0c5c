// Encodes accounts the way a validator's getAccountInfo / getMultipleAccounts / getProgramAccounts do
// (base58, base64, jsonParsed for SPL token accounts and mints, dataSlice).
import type { ReadonlyUint8Array } from "@solana/kit"
import bs58 from "bs58"
import { InvalidParamsError } from "./jsonRpc.js"
import {
  decodeMint,
  decodeTokenAccount,
  isTokenProgram,
  parsedMint,
  parsedTokenAccount
} from "./tokenAccounts.js"

export interface RawAccount {
  readonly lamports: bigint
  readonly owner: string
  readonly executable: boolean
  readonly data: Uint8Array
}

/** kit hands out account data typed read-only; the bytes are only ever read here. */
export function asBytes(data: ReadonlyUint8Array): Uint8Array {
  return new Uint8Array(data.buffer, data.byteOffset, data.byteLength)
}

export type AccountEncoding = "base58" | "base64" | "jsonParsed"

export interface DataSlice {
  readonly offset: number
  readonly length: number
}

/** rent_epoch of every rent-exempt account on current clusters (u64::MAX); see server's serializer. */
export const RENT_EPOCH_MAX = 18446744073709551615

export type AccountReader = (address: string) => RawAccount | null

export function parseEncoding(value: unknown, fallback: AccountEncoding): AccountEncoding {
  if (value === undefined || value === null) return fallback
  if (value === "base58" || value === "base64" || value === "jsonParsed") return value
  if (value === "binary") return "base58"
  if (value === "base64+zstd") throw new InvalidParamsError("Invalid params: base64+zstd encoding is not supported by this ledger")
  throw new InvalidParamsError(`Invalid params: unknown variant \`${String(value)}\`, expected one of \`binary\`, \`base58\`, \`base64\`, \`jsonParsed\`, \`base64+zstd\``)
}

export function parseDataSlice(value: unknown): DataSlice | null {
  if (value === undefined || value === null) return null
  if (typeof value === "object") {
    const { offset, length } = value as { offset?: unknown; length?: unknown }
    if (Number.isSafeInteger(offset) && Number.isSafeInteger(length) && Number(offset) >= 0 && Number(length) >= 0) {
      return { offset: Number(offset), length: Number(length) }
    }
  }
  throw new InvalidParamsError("Invalid params: dataSlice must be { offset, length } of non-negative integers")
}

function binary(data: Uint8Array, encoding: "base58" | "base64"): [string, string] {
  if (encoding === "base64") return [Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64"), "base64"]
  if (data.length > 128) {
    throw new InvalidParamsError("Encoded binary (base 58) data should be less than 128 bytes, please use Base64 encoding.")
  }
  return [bs58.encode(data), "base58"]
}

function jsonParsedData(account: RawAccount, read: AccountReader): unknown | null {
  if (!isTokenProgram(account.owner)) return null
  const tokenAccount = decodeTokenAccount(account.data)
  if (tokenAccount !== null) {
    const mintAccount = read(tokenAccount.mint)
    const mint = mintAccount === null ? null : decodeMint(mintAccount.data)
    if (mint === null) return null
    return { ...parsedTokenAccount(tokenAccount, mint.decimals, account.owner), space: account.data.length }
  }
  const mint = decodeMint(account.data)
  if (mint === null || !mint.isInitialized) return null
  return { ...parsedMint(mint, account.owner), space: account.data.length }
}

export function encodeAccount(
  account: RawAccount,
  encoding: AccountEncoding,
  dataSlice: DataSlice | null,
  read: AccountReader
): Record<string, unknown> {
  let data: unknown = null
  if (encoding === "jsonParsed" && dataSlice === null) data = jsonParsedData(account, read)
  if (data === null) {
    const sliced = dataSlice === null ? account.data : account.data.subarray(dataSlice.offset, dataSlice.offset + dataSlice.length)
    data = binary(sliced, encoding === "base58" ? "base58" : "base64")
  }
  return {
    data,
    executable: account.executable,
    lamports: Number(account.lamports),
    owner: account.owner,
    rentEpoch: RENT_EPOCH_MAX,
    space: account.data.length
  }
}

export interface MemcmpFilter {
  readonly offset: number
  readonly bytes: Uint8Array
}

export interface ProgramAccountFilters {
  readonly dataSize: number | null
  readonly memcmp: MemcmpFilter[]
}

export function parseProgramAccountFilters(value: unknown): ProgramAccountFilters {
  const result = { dataSize: null as number | null, memcmp: [] as MemcmpFilter[] }
  if (value === undefined || value === null) return result
  if (!Array.isArray(value) || value.length > 4) throw new InvalidParamsError("Invalid params: filters must be an array of at most 4 filters")
  for (const filter of value) {
    if (typeof filter !== "object" || filter === null) throw new InvalidParamsError("Invalid params: bad filter")
    const { dataSize, memcmp } = filter as { dataSize?: unknown; memcmp?: unknown }
    if (dataSize !== undefined) {
      if (!Number.isSafeInteger(dataSize) || Number(dataSize) < 0) throw new InvalidParamsError("Invalid params: bad dataSize")
      result.dataSize = Number(dataSize)
    } else if (typeof memcmp === "object" && memcmp !== null) {
      const { offset, bytes, encoding } = memcmp as { offset?: unknown; bytes?: unknown; encoding?: unknown }
      if (!Number.isSafeInteger(offset) || Number(offset) < 0 || typeof bytes !== "string") {
        throw new InvalidParamsError("Invalid params: bad memcmp filter")
      }
      let decoded: Uint8Array
      try {
        decoded = encoding === "base64" ? Buffer.from(bytes, "base64") : bs58.decode(bytes)
      } catch {
        throw new InvalidParamsError("Invalid params: memcmp bytes are not valid base58")
      }
      result.memcmp.push({ offset: Number(offset), bytes: decoded })
    } else {
      throw new InvalidParamsError("Invalid params: unknown filter")
    }
  }
  return result
}

export function matchesFilters(data: Uint8Array, filters: ProgramAccountFilters): boolean {
  if (filters.dataSize !== null && data.length !== filters.dataSize) return false
  for (const { offset, bytes } of filters.memcmp) {
    if (offset + bytes.length > data.length) return false
    for (let i = 0; i < bytes.length; i++) if (data[offset + i] !== bytes[i]) return false
  }
  return true
}
