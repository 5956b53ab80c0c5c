/**
 * What POST /wallets/<id>/sign is asked to sign, decoded before anything is recorded: a serialized
 * transaction (its exact message bytes, the other signers' signatures, its program ids and accounts),
 * or a message, which is signed only as a Solana off-chain message (domain-separated by the
 * "\xffsolana offchain" preamble, @solana/kit's v0 envelope) and never when its bytes are a transaction
 * or a transaction message.
 */
import { address } from "@solana/kit"
import {
  compileOffchainMessageV0Envelope,
  OffchainMessageContentFormat,
  offchainMessageApplicationDomain,
  type OffchainMessageV0
} from "@solana/kit"
import { VersionedMessage, VersionedTransaction } from "@solana/web3.js"
import bs58 from "bs58"

export class SignInputError extends Error {}

export interface TransactionToSign {
  /** The exact message bytes that will be simulated, decided on and signed. */
  readonly messageBase64: string
  /** Signatures already present for the other signers (kept in the signed transaction). */
  readonly extraSignatures: Record<string, string>
  readonly feePayer: string
  readonly accountKeys: ReadonlyArray<string>
  readonly programIds: ReadonlyArray<string>
}

const ZERO_SIGNATURE = new Uint8Array(64)

export const decodeTransactionToSign = (transactionBase64: string): TransactionToSign => {
  let transaction: VersionedTransaction
  try {
    transaction = VersionedTransaction.deserialize(Buffer.from(transactionBase64, "base64"))
  } catch (error) {
    throw new SignInputError(`transaction: not a serialized Solana transaction (${error instanceof Error ? error.message : String(error)})`)
  }
  const message = transaction.message
  if (message.addressTableLookups.length > 0) {
    // Accounts loaded from lookup tables are not in the message: their balance changes could not be checked.
    throw new SignInputError("transaction: address lookup tables are not supported for signing")
  }
  const keys = message.staticAccountKeys.map((key) => key.toBase58())
  const signers = keys.slice(0, message.header.numRequiredSignatures)
  const extraSignatures: Record<string, string> = {}
  transaction.signatures.forEach((signature, index) => {
    if (index > 0 && signers[index] !== undefined && !Buffer.from(signature).equals(ZERO_SIGNATURE)) extraSignatures[signers[index]] = bs58.encode(signature)
  })
  const programIds = [...new Set(message.compiledInstructions.map((instruction) => keys[instruction.programIdIndex]!))]
  // The message exactly as sent: the bytes after the signature count and signatures.
  const wire = Buffer.from(transactionBase64, "base64")
  const countSize = wire[0]! < 0x80 ? 1 : wire[1]! < 0x80 ? 2 : 3
  const messageBytes = wire.subarray(countSize + 64 * transaction.signatures.length)
  return {
    messageBase64: messageBytes.toString("base64"),
    extraSignatures,
    feePayer: keys[0]!,
    accountKeys: keys,
    programIds
  }
}

/** True when the bytes parse as a transaction or as a transaction message (legacy or versioned). */
export const looksLikeTransaction = (bytes: Uint8Array): boolean => {
  const parses = (parse: () => unknown) => {
    try {
      parse()
      return true
    } catch {
      return false
    }
  }
  return parses(() => VersionedMessage.deserialize(bytes)) || parses(() => VersionedTransaction.deserialize(bytes))
}

/** The all-zero application domain: a message not bound to one application. */
const DEFAULT_DOMAIN = "11111111111111111111111111111111"

/**
 * The off-chain message (v0) the wallet signs for `message`: UTF-8 text (restricted ASCII or UTF-8
 * format by its content), the wallet as the only signatory. Refuses bytes that are a transaction.
 */
export const offChainMessageBytes = (messageBase64: string, signer: string, applicationDomain = DEFAULT_DOMAIN): Uint8Array => {
  const bytes = Buffer.from(messageBase64, "base64")
  if (bytes.length === 0) throw new SignInputError("message: must not be empty")
  if (looksLikeTransaction(bytes)) throw new SignInputError("message: is a serialized transaction or transaction message; sign it as `transaction` (under policy)")
  let text: string
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes)
  } catch {
    throw new SignInputError("message: must be UTF-8 text (the off-chain message format signs text)")
  }
  const ascii = /^[\x20-\x7e\n]*$/.test(text)
  const format =
    bytes.length <= 1232
      ? ascii ? OffchainMessageContentFormat.RESTRICTED_ASCII_1232_BYTES_MAX : OffchainMessageContentFormat.UTF8_1232_BYTES_MAX
      : OffchainMessageContentFormat.UTF8_65535_BYTES_MAX
  if (bytes.length > 65535) throw new SignInputError("message: at most 65535 bytes")
  const offChain = {
    version: 0,
    applicationDomain: offchainMessageApplicationDomain(applicationDomain),
    requiredSignatories: [{ address: address(signer) }],
    content: { format, text }
  } as unknown as OffchainMessageV0
  try {
    return Uint8Array.from(compileOffchainMessageV0Envelope(offChain).content)
  } catch (error) {
    throw new SignInputError(`message: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** The off-chain message signing domain every such message starts with. */
export const OFF_CHAIN_SIGNING_DOMAIN = Buffer.concat([Buffer.from([0xff]), Buffer.from("solana offchain")])

export const isOffChainMessage = (bytes: Uint8Array) =>
  bytes.length > OFF_CHAIN_SIGNING_DOMAIN.length && Buffer.from(bytes.subarray(0, OFF_CHAIN_SIGNING_DOMAIN.length)).equals(OFF_CHAIN_SIGNING_DOMAIN) && !looksLikeTransaction(bytes)

/** The recorded types of signing requests (beside the spec's 26 intent types; protocol `wallet`). */
export const SIGN_TRANSACTION_TYPE = "sign_transaction"
export const SIGN_MESSAGE_TYPE = "sign_message"
export const SIGN_PROTOCOL = "wallet"
export const SIGN_ONLY_TYPES: ReadonlySet<string> = new Set([SIGN_TRANSACTION_TYPE, SIGN_MESSAGE_TYPE])
