/**
 * Builds an x402 payment with the reference packages (@x402/core's client, @x402/svm's `exact` scheme
 * for v2 and v1): the scheme composes its transaction (transfer-checked to the payee's token account,
 * a memo, the facilitator as fee payer) and asks a signer to sign it. Here that signer only records
 * the message bytes and returns an empty signature: the pipeline simulates those bytes, runs policy,
 * and the signer actor signs exactly them later (`withWalletSignature`). No key is involved here.
 */
import { address, type SignatureBytes, type SignatureDictionary, type TransactionPartialSigner } from "@solana/kit"
import { x402Client, x402HTTPClient } from "@x402/core/client"
import type { PaymentPayload, PaymentRequired, PaymentRequirements } from "@x402/core/types"
import { ExactSvmScheme } from "@x402/svm/exact/client"
import { ExactSvmSchemeV1 } from "@x402/svm/exact/v1/client"
import { splitWireTransaction } from "../messageView.js"

export interface BuiltPayment {
  /** the payload as the scheme built it, its transaction not yet signed by the wallet */
  readonly payload: PaymentPayload
  /** the message the wallet will sign (what is simulated and checked) */
  readonly messageBase64: string
}

const V1_NETWORKS = ["solana", "solana-devnet", "solana-testnet"]

/** A kit signer that records the message it is shown and signs nothing. */
const recordingSigner = (wallet: string) => {
  const seen: Array<Uint8Array> = []
  const signer: TransactionPartialSigner = {
    address: address(wallet),
    signTransactions: async (transactions) =>
      transactions.map((transaction) => {
        seen.push(new Uint8Array(transaction.messageBytes))
        return { [wallet]: new Uint8Array(64) as SignatureBytes } as SignatureDictionary
      })
  }
  return { signer, seen }
}

export const buildPayment = async (input: {
  readonly paymentRequired: PaymentRequired
  readonly requirement: PaymentRequirements
  readonly wallet: string
  readonly rpcUrl: string
}): Promise<BuiltPayment> => {
  const { signer, seen } = recordingSigner(input.wallet)
  // Selection, the amount cap and the policy checks are the pipeline's: the client only builds.
  const client = new x402Client().setSpendControls(false)
  client.register("solana:*", new ExactSvmScheme(signer, { rpcUrl: input.rpcUrl }))
  for (const network of V1_NETWORKS) client.registerV1(network, new ExactSvmSchemeV1(signer, { rpcUrl: input.rpcUrl }))
  const payload = await client.createPaymentPayload({ ...input.paymentRequired, accepts: [input.requirement] })
  const transaction = (payload.payload as { transaction?: unknown }).transaction
  if (typeof transaction !== "string") throw new Error("the x402 scheme built no transaction")
  const { message } = splitWireTransaction(Buffer.from(transaction, "base64"))
  if (seen.length !== 1 || Buffer.compare(Buffer.from(seen[0]), Buffer.from(message)) !== 0) throw new Error("the x402 scheme's transaction is not the message it asked to sign")
  return { payload, messageBase64: Buffer.from(message).toString("base64") }
}

/** The payload with the wallet-signed transaction in place of the unsigned one. */
export const withSignedTransaction = (payload: PaymentPayload, signedTransactionBase64: string): PaymentPayload => ({
  ...payload,
  payload: { ...payload.payload, transaction: signedTransactionBase64 }
})

/** The HTTP side of the reference client: 402 parsing, the payment header, the settlement header. */
export const httpClient = new x402HTTPClient(new x402Client())
