/**
 * What POST /wallets/<id>/sign is asked to sign, decoded before anything is recorded: a serialized
 * transaction (its exact message bytes, the other signers' signatures, its program ids and accounts),
 * or a message, which is signed only as a Solana off-chain message (domain-separated by the
 * "\xffsolana offchain" preamble, @solana/kit's v0 envelope: offChainMessage.ts) and never when its bytes
 * are a transaction or a transaction message.
 */
import { VersionedMessage, VersionedTransaction } from "@solana/web3.js"
import bs58 from "bs58"
import { Effect } from "effect"

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

/** The off-chain message encoder (offChainMessage.ts), loaded on first use with @solana/kit. */
export const offChainMessages = Effect.promise(() => import("./offChainMessage.js"))

/** The off-chain message signing domain every such message starts with. */
export const OFF_CHAIN_SIGNING_DOMAIN = Buffer.concat([Buffer.from([0xff]), Buffer.from("solana offchain")])

export const isOffChainMessage = (bytes: Uint8Array) =>
  bytes.length > OFF_CHAIN_SIGNING_DOMAIN.length && Buffer.from(bytes.subarray(0, OFF_CHAIN_SIGNING_DOMAIN.length)).equals(OFF_CHAIN_SIGNING_DOMAIN) && !looksLikeTransaction(bytes)

/** The recorded types of signing requests (beside the spec's 26 intent types; protocol `wallet`). */
export const SIGN_TRANSACTION_TYPE = "sign_transaction"
export const SIGN_MESSAGE_TYPE = "sign_message"
export const SIGN_PROTOCOL = "wallet"
export const SIGN_ONLY_TYPES: ReadonlySet<string> = new Set([SIGN_TRANSACTION_TYPE, SIGN_MESSAGE_TYPE])
