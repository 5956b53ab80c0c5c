/**
 * Solana wire format for the pipeline: a legacy message compiled from instructions, and a transaction
 * assembled from message bytes and signatures. The bytes are exactly those of web3.js
 * (`TransactionMessage.compileToLegacyMessage().serialize()`, tested against it), without its
 * base58 round trips for every account key, which cost more CPU than anything else in a build.
 */
import type { PublicKey, TransactionInstruction } from "@solana/web3.js"
import bs58 from "bs58"

interface KeyMeta {
  readonly key: Buffer
  isSigner: boolean
  isWritable: boolean
}

/** compact-u16 ("shortvec"), the length prefix of the wire format. */
const shortVec = (value: number): Array<number> => {
  const bytes: Array<number> = []
  let rest = value
  for (;;) {
    const low = rest & 0x7f
    rest >>= 7
    if (rest === 0) {
      bytes.push(low)
      return bytes
    }
    bytes.push(low | 0x80)
  }
}

const readShortVec = (bytes: Uint8Array, offset: number): { readonly value: number; readonly size: number } => {
  let value = 0
  for (let size = 0; size < 3; size++) {
    const byte = bytes[offset + size]
    value |= (byte & 0x7f) << (7 * size)
    if ((byte & 0x80) === 0) return { value, size: size + 1 }
  }
  throw new Error("malformed compact-u16")
}

/**
 * The legacy message paying from `payer`: account keys ordered as the runtime requires (writable
 * signers with the payer first, readonly signers, writable non-signers, readonly non-signers; each
 * group in order of first use), then the blockhash and the compiled instructions.
 */
export const compileLegacyMessage = (payer: PublicKey, recentBlockhash: string, instructions: ReadonlyArray<TransactionInstruction>): Buffer => {
  const metas = new Map<string, KeyMeta>()
  const meta = (publicKey: PublicKey) => {
    const key = publicKey.toBuffer()
    const id = key.toString("latin1")
    let found = metas.get(id)
    if (found === undefined) {
      found = { key, isSigner: false, isWritable: false }
      metas.set(id, found)
    }
    return found
  }
  const payerMeta = meta(payer)
  payerMeta.isSigner = true
  payerMeta.isWritable = true
  for (const instruction of instructions) {
    meta(instruction.programId)
    for (const account of instruction.keys) {
      const found = meta(account.pubkey)
      found.isSigner ||= account.isSigner
      found.isWritable ||= account.isWritable
    }
  }
  const all = [...metas.values()]
  const groups = [
    all.filter((m) => m.isSigner && m.isWritable),
    all.filter((m) => m.isSigner && !m.isWritable),
    all.filter((m) => !m.isSigner && m.isWritable),
    all.filter((m) => !m.isSigner && !m.isWritable)
  ]
  const ordered = groups.flat()
  if (ordered.length > 256) throw new Error("more than 256 account keys")
  const index = new Map(ordered.map((m, i) => [m.key.toString("latin1"), i]))
  const indexOf = (publicKey: PublicKey) => index.get(publicKey.toBuffer().toString("latin1")) ?? 0

  const parts: Array<Uint8Array> = [
    Uint8Array.from([groups[0].length + groups[1].length, groups[1].length, groups[3].length, ...shortVec(ordered.length)]),
    ...ordered.map((m) => m.key),
    bs58.decode(recentBlockhash),
    Uint8Array.from(shortVec(instructions.length))
  ]
  for (const instruction of instructions) {
    parts.push(
      Uint8Array.from([
        indexOf(instruction.programId),
        ...shortVec(instruction.keys.length),
        ...instruction.keys.map((account) => indexOf(account.pubkey)),
        ...shortVec(instruction.data.length)
      ]),
      instruction.data
    )
  }
  return Buffer.concat(parts)
}

/** The signer keys of a message (legacy or v0): its first `numRequiredSignatures` account keys. */
const signerKeys = (message: Uint8Array): Array<Uint8Array> => {
  const prefix = (message[0] & 0x80) !== 0 ? 1 : 0 // a versioned message starts with 0x80 | version
  const required = message[prefix]
  const keys = readShortVec(message, prefix + 3)
  const start = prefix + 3 + keys.size
  if (required > keys.value || start + 32 * keys.value > message.length) throw new Error("malformed message")
  return Array.from({ length: required }, (_, i) => message.subarray(start + 32 * i, start + 32 * (i + 1)))
}

/** Wire bytes from message bytes and signatures by signer (base58 key); a missing one stays zeros (for simulation). */
export const assembleTransaction = (messageBase64: string, signatures: Record<string, string | Uint8Array>): Buffer => {
  const message = Buffer.from(messageBase64, "base64")
  const signers = signerKeys(message).map((key) => bs58.encode(key))
  for (const signer of Object.keys(signatures)) {
    if (!signers.includes(signer)) throw new Error(`${signer} is not a signer of the message`)
  }
  const parts: Array<Uint8Array> = [Uint8Array.from(shortVec(signers.length))]
  for (const signer of signers) {
    const given = signatures[signer]
    const signature = given === undefined ? new Uint8Array(64) : typeof given === "string" ? bs58.decode(given) : given
    if (signature.length !== 64) throw new Error(`the signature of ${signer} is not 64 bytes`)
    parts.push(signature)
  }
  parts.push(message)
  return Buffer.concat(parts)
}

/** The fee payer (first account key) of a message: it must be the wallet that signs. */
export const feePayerOf = (messageBase64: string): string => bs58.encode(signerKeys(Buffer.from(messageBase64, "base64"))[0])

/** The signer keys (base58) of a message, fee payer first. */
export const signersOf = (messageBase64: string): Array<string> => signerKeys(Buffer.from(messageBase64, "base64")).map((key) => bs58.encode(key))
