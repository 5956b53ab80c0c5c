// Parses and sanitizes Solana wire transactions (legacy and v0) BEFORE they reach litesvm.
// litesvm's native binding unwraps its own deserializer result, so some malformed bytes abort the
// whole process with a Rust panic; everything that is not a well-formed, sanitized transaction is
// refused here with the validator's own wording instead.
import bs58 from "bs58"

export class WireFormatError extends Error {}

export interface CompiledInstruction {
  readonly programIdIndex: number
  readonly accounts: number[]
  readonly data: Uint8Array
}

export interface AddressTableLookup {
  readonly accountKey: string
  readonly writableIndexes: number[]
  readonly readonlyIndexes: number[]
}

export interface MessageHeader {
  readonly numRequiredSignatures: number
  readonly numReadonlySignedAccounts: number
  readonly numReadonlyUnsignedAccounts: number
}

export interface ParsedMessage {
  readonly version: "legacy" | 0
  readonly header: MessageHeader
  readonly staticKeys: string[]
  readonly recentBlockhash: string
  /** Byte offset of the recent blockhash inside the message bytes (for replaceRecentBlockhash). */
  readonly blockhashOffset: number
  readonly instructions: CompiledInstruction[]
  readonly lookups: AddressTableLookup[]
}

export interface ParsedTransaction {
  readonly wire: Uint8Array
  readonly signatures: string[]
  readonly messageOffset: number
  readonly message: ParsedMessage
}

/** The packet size limit of a validator: larger transactions are refused. */
export const MAX_TRANSACTION_BYTES = 1232

class Reader {
  offset = 0
  constructor(readonly bytes: Uint8Array) {}

  u8(): number {
    if (this.offset >= this.bytes.length) throw new WireFormatError("io error: unexpected end of file")
    return this.bytes[this.offset++]
  }

  // compact-u16 ("shortvec"): 1-3 bytes, canonical encoding only, as the validator requires.
  shortU16(): number {
    let value = 0
    for (let i = 0; i < 3; i++) {
      const byte = this.u8()
      value |= (byte & 0x7f) << (7 * i)
      if ((byte & 0x80) === 0) {
        if (i > 0 && byte === 0) throw new WireFormatError("io error: non-canonical compact-u16")
        if (value > 0xffff) throw new WireFormatError("io error: compact-u16 overflow")
        return value
      }
    }
    throw new WireFormatError("io error: compact-u16 too long")
  }

  take(length: number): Uint8Array {
    if (this.offset + length > this.bytes.length) throw new WireFormatError("io error: unexpected end of file")
    const out = this.bytes.subarray(this.offset, this.offset + length)
    this.offset += length
    return out
  }

  key(): string {
    return bs58.encode(this.take(32))
  }
}

function readMessage(reader: Reader): ParsedMessage {
  const start = reader.offset
  const first = reader.bytes[reader.offset]
  let version: "legacy" | 0 = "legacy"
  if (first !== undefined && (first & 0x80) !== 0) {
    reader.u8()
    const v = first & 0x7f
    if (v !== 0) throw new WireFormatError(`invalid transaction version: ${v}`)
    version = 0
  }
  const header: MessageHeader = {
    numRequiredSignatures: reader.u8(),
    numReadonlySignedAccounts: reader.u8(),
    numReadonlyUnsignedAccounts: reader.u8()
  }
  const keyCount = reader.shortU16()
  const staticKeys: string[] = []
  for (let i = 0; i < keyCount; i++) staticKeys.push(reader.key())
  const blockhashOffset = reader.offset - start
  const recentBlockhash = reader.key()
  const instructionCount = reader.shortU16()
  const instructions: CompiledInstruction[] = []
  for (let i = 0; i < instructionCount; i++) {
    const programIdIndex = reader.u8()
    const accounts = Array.from(reader.take(reader.shortU16()))
    const data = reader.take(reader.shortU16())
    instructions.push({ programIdIndex, accounts, data })
  }
  const lookups: AddressTableLookup[] = []
  if (version === 0) {
    const lookupCount = reader.shortU16()
    for (let i = 0; i < lookupCount; i++) {
      const accountKey = reader.key()
      const writableIndexes = Array.from(reader.take(reader.shortU16()))
      const readonlyIndexes = Array.from(reader.take(reader.shortU16()))
      lookups.push({ accountKey, writableIndexes, readonlyIndexes })
    }
  }
  return { version, header, staticKeys, recentBlockhash, blockhashOffset, instructions, lookups }
}

/** The runtime's Message::sanitize rules; a violation would be a SanitizeFailure on a validator. */
function sanitize(message: ParsedMessage): void {
  const { header, staticKeys, instructions, lookups } = message
  const fail = (why: string): never => {
    throw new WireFormatError(`invalid transaction: Transaction failed to sanitize accounts offsets correctly (${why})`)
  }
  if (header.numRequiredSignatures === 0) fail("no fee payer")
  if (header.numRequiredSignatures > staticKeys.length) fail("more signers than keys")
  if (header.numReadonlySignedAccounts >= header.numRequiredSignatures) fail("fee payer must be writable")
  if (header.numReadonlyUnsignedAccounts > staticKeys.length - header.numRequiredSignatures) fail("readonly count")
  const loadedCount = lookups.reduce((n, l) => n + l.writableIndexes.length + l.readonlyIndexes.length, 0)
  for (const lookup of lookups) {
    if (lookup.writableIndexes.length + lookup.readonlyIndexes.length === 0) fail("empty lookup")
  }
  const totalKeys = staticKeys.length + loadedCount
  if (totalKeys > 256) fail("too many account keys")
  if (new Set(staticKeys).size !== staticKeys.length) fail("duplicate account key")
  for (const ix of instructions) {
    if (ix.programIdIndex === 0 || ix.programIdIndex >= staticKeys.length) fail("program id index")
    for (const index of ix.accounts) if (index >= totalKeys) fail("account index")
  }
}

export function parseMessage(bytes: Uint8Array): ParsedMessage {
  const reader = new Reader(bytes)
  const message = readMessage(reader)
  if (reader.offset !== bytes.length) throw new WireFormatError("io error: trailing bytes after message")
  sanitize(message)
  return message
}

export function parseWireTransaction(wire: Uint8Array): ParsedTransaction {
  if (wire.length > MAX_TRANSACTION_BYTES) {
    throw new WireFormatError(`transaction too large: ${wire.length} bytes (max: ${MAX_TRANSACTION_BYTES} bytes)`)
  }
  const reader = new Reader(wire)
  const signatureCount = reader.shortU16()
  const signatures: string[] = []
  for (let i = 0; i < signatureCount; i++) signatures.push(bs58.encode(reader.take(64)))
  const messageOffset = reader.offset
  const message = readMessage(reader)
  if (reader.offset !== wire.length) throw new WireFormatError("io error: trailing bytes after transaction")
  sanitize(message)
  if (signatureCount !== message.header.numRequiredSignatures) {
    throw new WireFormatError("invalid transaction: Transaction did not pass signature verification (signature count)")
  }
  return { wire, signatures, messageOffset, message }
}

/** Keys a transaction writes, in account-key order (static keys, then loaded writable, loaded readonly). */
export function isWritableStaticKey(message: ParsedMessage, index: number): boolean {
  const { numRequiredSignatures, numReadonlySignedAccounts, numReadonlyUnsignedAccounts } = message.header
  if (index < numRequiredSignatures) return index < numRequiredSignatures - numReadonlySignedAccounts
  return index < message.staticKeys.length - numReadonlyUnsignedAccounts
}
