/** Assembles wire bytes from message bytes and signatures (missing ones left as zeros, for simulation). */
import { Message, PublicKey, Transaction } from "@solana/web3.js"
import bs58 from "bs58"

export const assembleTransaction = (messageBase64: string, signatures: Record<string, string | Uint8Array>): Buffer => {
  const transaction = Transaction.populate(Message.from(Buffer.from(messageBase64, "base64")))
  for (const [publicKey, signature] of Object.entries(signatures)) {
    transaction.addSignature(new PublicKey(publicKey), Buffer.from(typeof signature === "string" ? bs58.decode(signature) : signature))
  }
  // Signatures were made by node:crypto (or are deliberately absent for simulation): do not re-verify in JS.
  return transaction.serialize({ verifySignatures: false, requireAllSignatures: false })
}

/** The fee payer (first account key) of a message: it must be the wallet that signs. */
export const feePayerOf = (messageBase64: string): string =>
  Message.from(Buffer.from(messageBase64, "base64")).accountKeys[0].toBase58()
