/**
 * POST /api/v1/wallets/<id>/sign (spec: Wallets). Not a side door to the key: the request is checked,
 * then recorded as a transaction of type sign_transaction or sign_message and run by the pipeline
 * (simulation and facts for a transaction, the policy stage, approval when policy asks, the signer
 * actor signing exactly the recorded bytes, a proof). The answer waits for that run: 200 with the
 * signature, 202 at the approval gate (approve, then read the result with GET /transactions/<txId>),
 * 403 when policy refuses, 500 when the pipeline fails.
 */
import bs58 from "bs58"
import { Effect } from "effect"
import { Uuid } from "../../schemas/common.js"
import { NotFound, ValidationError } from "../../schemas/errors.js"
import { SignBody } from "../../schemas/wallet.js"
import { Caller } from "../gateway/caller.js"
import { ok, type Reply } from "../gateway/envelope.js"
import { decodeBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { WalletsApi } from "../../schemas/api/wallets.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import type { AcceptedRequest } from "./acceptIntent.js"
import {
  decodeTransactionToSign,
  offChainMessages,
  SIGN_MESSAGE_TYPE,
  SIGN_PROTOCOL,
  SIGN_TRANSACTION_TYPE,
  SignInputError
} from "./signRequest.js"
import { transactionReply } from "./transactionReply.js"
import type { TransactionRow } from "./transactionRow.js"
import { WalletSpendGate } from "./agentPorts.js"
import { TransactionWaits } from "./transactionWaits.js"

/** How long the answer waits for the run (the pipeline keeps going after, as for any transaction). */
const SIGN_WAIT_MS = 30_000

const inputError = (field: "transaction" | "message") => (error: unknown) =>
  new ValidationError({ message: error instanceof SignInputError ? error.message : `${field}: ${String(error)}`, field })

/** Checks the input before anything is recorded: a bad request is a 400 and changes nothing. */
const checkInput = (body: SignBody, publicKey: string) =>
  Effect.gen(function* () {
    if ((body.transaction === undefined) === (body.message === undefined)) {
      return yield* new ValidationError({ message: "body: exactly one of transaction or message is required", field: "transaction" })
    }
    if (body.transaction !== undefined) {
      const transaction = body.transaction
      const decoded = yield* Effect.try({ try: () => decodeTransactionToSign(transaction), catch: inputError("transaction") })
      if (decoded.feePayer !== publicKey) {
        return yield* new ValidationError({ message: `transaction: its fee payer ${decoded.feePayer} is not the wallet ${publicKey}`, field: "transaction" })
      }
      return { type: SIGN_TRANSACTION_TYPE, intent: { transaction } }
    }
    const message = body.message ?? ""
    const { offChainMessageBytes } = yield* offChainMessages
    yield* Effect.try({ try: () => offChainMessageBytes(message, publicKey), catch: inputError("message") })
    return { type: SIGN_MESSAGE_TYPE, intent: { message } }
  })

const signedReply = (row: TransactionRow, publicKey: string): Reply => {
  const result = row.result as { signature?: string } | null
  if (row.status === "confirmed" && typeof result?.signature === "string") {
    return ok({
      signature: Buffer.from(bs58.decode(result.signature)).toString("base64"),
      publicKey,
      txId: row.id,
      ...(row.type === SIGN_TRANSACTION_TYPE ? { signedTransaction: row.signed_transaction } : { signedMessage: row.message_base64 })
    })
  }
  if (row.status === "failed") return transactionReply(row, row.error_code === "POLICY_VIOLATION" ? 403 : 500)
  return transactionReply(row, 202)
}

export const signRoutes = [
  route(
    WalletsApi.sign,
    Effect.gen(function* () {
      const walletId = yield* pathParam("walletId", Uuid)
      const caller = yield* Caller
      // The wallet first: another tenant's key learns nothing from how its body would have been judged.
      const stored = yield* (yield* WalletRepo).find(walletId, caller.readTenant)
      if (stored === undefined) return yield* new NotFound({ resource: "wallet", id: walletId })
      const body = yield* decodeBody(SignBody)
      const { type, intent } = yield* checkInput(body, stored.wallet.publicKey)
      // With a key, a repeat (its answer lost) is answered with the first signing, and its spend counted once.
      const request = {
        walletId, type, protocol: SIGN_PROTOCOL, gasless: false, requireApproval: false, intent,
        ...(body.idempotencyKey === undefined ? {} : { idempotencyKey: body.idempotencyKey })
      } as unknown as AcceptedRequest
      // Through WalletSpend: an agent's wallet gets that agent's checks, as every other spend path.
      const { row } = yield* (yield* WalletSpendGate).create(caller, request, undefined)
      const waits = yield* TransactionWaits
      const settled = yield* waits.withWait(caller.keyId, SIGN_WAIT_MS, (waitMs) => waits.awaitSettledRow(row, waitMs))
      return signedReply(settled, stored.wallet.publicKey)
    })
  )
]
