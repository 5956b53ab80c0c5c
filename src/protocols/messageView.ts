/**
 * A read-only view of Solana message bytes (legacy or v0): header counts, static account keys,
 * blockhash and compiled instructions. The relay validates what it is asked to pay for with it, and
 * the pipeline reads the same view for its gasless and x402 checks.
 */
import bs58 from "bs58"
import { COMPUTE_BUDGET_PROGRAM_ID } from "./programIds.js"

export interface CompiledInstructionView {
  readonly programId: string
  readonly accounts: ReadonlyArray<number>
  readonly data: Buffer
}

export interface MessageView {
  readonly version: "legacy" | 0
  readonly numRequiredSignatures: number
  readonly numReadonlySigned: number
  readonly numReadonlyUnsigned: number
  readonly accountKeys: ReadonlyArray<string>
  readonly blockhash: string
  readonly instructions: ReadonlyArray<CompiledInstructionView>
  /** address lookup tables a v0 message reads (their accounts are not in accountKeys) */
  readonly lookupTables: number
}

const readShortVec = (bytes: Uint8Array, offset: number): { value: number; next: number } => {
  let value = 0
  for (let size = 0; size < 3; size++) {
    const byte = bytes[offset + size]
    if (byte === undefined) throw new Error("truncated compact-u16")
    value |= (byte & 0x7f) << (7 * size)
    if ((byte & 0x80) === 0) return { value, next: offset + size + 1 }
  }
  throw new Error("malformed compact-u16")
}

/** Parses message bytes; throws on anything malformed (callers turn that into a refusal). */
export const viewMessage = (message: Uint8Array): MessageView => {
  let at = 0
  const versioned = (message[0] & 0x80) !== 0
  if (versioned) {
    if ((message[0] & 0x7f) !== 0) throw new Error(`unsupported message version ${message[0] & 0x7f}`)
    at = 1
  }
  const take = (length: number) => {
    if (at + length > message.length) throw new Error("truncated message")
    const part = message.subarray(at, at + length)
    at += length
    return part
  }
  const [numRequiredSignatures, numReadonlySigned, numReadonlyUnsigned] = take(3)
  const keyCount = readShortVec(message, at)
  at = keyCount.next
  const accountKeys = Array.from({ length: keyCount.value }, () => bs58.encode(take(32)))
  if (numRequiredSignatures > accountKeys.length) throw new Error("more signers than account keys")
  const blockhash = bs58.encode(take(32))
  const instructionCount = readShortVec(message, at)
  at = instructionCount.next
  const instructions: Array<CompiledInstructionView> = []
  for (let i = 0; i < instructionCount.value; i++) {
    const [programIndex] = take(1)
    const accountCount = readShortVec(message, at)
    at = accountCount.next
    const accounts = Array.from(take(accountCount.value))
    const dataLength = readShortVec(message, at)
    at = dataLength.next
    const data = Buffer.from(take(dataLength.value))
    const programId = accountKeys[programIndex]
    if (programId === undefined) throw new Error("instruction program is not a static account key")
    instructions.push({ programId, accounts, data })
  }
  let lookupTables = 0
  if (versioned) {
    const lookups = readShortVec(message, at)
    lookupTables = lookups.value
  }
  return { version: versioned ? 0 : "legacy", numRequiredSignatures, numReadonlySigned, numReadonlyUnsigned, accountKeys, blockhash, instructions, lookupTables }
}

/** Splits wire bytes into signatures and message bytes. */
export const splitWireTransaction = (wire: Uint8Array): { signatures: Array<Uint8Array>; message: Uint8Array } => {
  const count = readShortVec(wire, 0)
  const start = count.next
  const end = start + 64 * count.value
  if (end > wire.length) throw new Error("truncated transaction")
  const signatures = Array.from({ length: count.value }, (_, i) => wire.subarray(start + 64 * i, start + 64 * (i + 1)))
  return { signatures, message: wire.subarray(end) }
}

/** Wire bytes from signatures (in signer order) and message bytes. */
export const joinWireTransaction = (signatures: ReadonlyArray<Uint8Array>, message: Uint8Array): Buffer => {
  const prefix: Array<number> = []
  let rest = signatures.length
  for (;;) {
    const low = rest & 0x7f
    rest >>= 7
    if (rest === 0) {
      prefix.push(low)
      break
    }
    prefix.push(low | 0x80)
  }
  return Buffer.concat([Uint8Array.from(prefix), ...signatures, message])
}

/** Position of `address` among the message's static account keys, or -1. */
export const accountIndexOf = (view: MessageView, address: string): number => view.accountKeys.indexOf(address)

const MAX_COMPUTE_UNIT_LIMIT = 1_400_000n

/**
 * Lamports the fee payer pays, as the runtime charges them: 5000 per signature plus the priority fee
 * (unit price in micro-lamports x unit limit, rounded up; without a limit 200,000 units per other
 * instruction, at most 1,400,000).
 */
export const messageFeeLamports = (view: MessageView): bigint => {
  let unitLimit: bigint | undefined
  let unitPrice = 0n
  let otherInstructions = 0n
  for (const ix of view.instructions) {
    if (ix.programId === COMPUTE_BUDGET_PROGRAM_ID) {
      if (ix.data[0] === 2 && ix.data.length >= 5) unitLimit = BigInt(ix.data.readUInt32LE(1))
      if (ix.data[0] === 3 && ix.data.length >= 9) unitPrice = ix.data.readBigUInt64LE(1)
    } else otherInstructions += 1n
  }
  const requested = unitLimit ?? 200_000n * otherInstructions
  const units = requested > MAX_COMPUTE_UNIT_LIMIT ? MAX_COMPUTE_UNIT_LIMIT : requested
  const priority = (unitPrice * units + 999_999n) / 1_000_000n
  return 5_000n * BigInt(view.numRequiredSignatures) + priority
}
