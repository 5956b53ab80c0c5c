/**
 * The off-chain message (v0) a wallet signs for a text message, in @solana/kit's envelope. Its own module,
 * loaded on the first message signed (`offChainMessages` of signRequest.ts): @solana/kit is needed for
 * nothing else in the service, and loading it with the application cost 45-64 ms and 6-7 MiB resident.
 */
import {
  address,
  compileOffchainMessageV0Envelope,
  OffchainMessageContentFormat,
  offchainMessageApplicationDomain,
  type OffchainMessageV0
} from "@solana/kit"
import { looksLikeTransaction, SignInputError } from "./signRequest.js"

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
