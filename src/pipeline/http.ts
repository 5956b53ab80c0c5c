/** Transaction routes of the gateway (spec: Transactions; wallet lists [n12][n28]; outbox stats). */
import { Effect, Schema } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import { RejectBody } from "../../schemas/transaction.js"
import { ApproveBody } from "../../schemas/approval.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, jsonBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { headerManifest } from "./manifestHeader.js"
import { WalletSpendGate } from "./agentPorts.js"
import { type AcceptedRequest, decodeTransactionRequest } from "./acceptIntent.js"
import { Outbox } from "./outbox.js"
import { TransactionService } from "./transactionService.js"
import { createdReply, retryReply, transactionReply } from "./transactionReply.js"
import type { TransactionRow } from "./transactionRow.js"
import { TransactionWaits } from "./transactionWaits.js"
import { OutboxApi } from "../../schemas/api/operations.js"
import { CreateWaitQuery, TransactionListQuery, TransactionsApi } from "../../schemas/api/transactions.js"

const txId = pathParam("txId", Uuid)
const walletId = pathParam("walletId", Uuid)

/**
 * Runs `create` and answers with the state the transaction reached within the request's wait
 * (transactionWaits.ts): 201 confirmed or still running, 202 at the approval gate, or the failure.
 * Shared by POST /transactions, /agents/<id>/execute and the escrow helpers.
 */
export const replyAfterWait = <E, R>(create: Effect.Effect<{ readonly row: TransactionRow; readonly created: boolean }, E, R>) =>
  Effect.gen(function* () {
    const { waitMs } = yield* decodeQuery(CreateWaitQuery)
    const waits = yield* TransactionWaits
    const caller = yield* Caller
    return yield* waits.withWait(caller.keyId, waitMs, (wait) =>
      Effect.gen(function* () {
        const { row, created } = yield* create
        return createdReply(yield* waits.awaitSettled(row, wait), created)
      })
    )
  })

/** Creates the transaction `decodeRequest` yields and answers as POST /transactions does (`?waitMs=`
 *  included); the escrow helpers reuse it with requests they assemble. It goes through WalletSpend, so
 *  an agent's wallet gets the agent's checks; the manifest is the body's or the x-agent-manifest header's. */
export const createAndReply = <E, R>(decodeRequest: Effect.Effect<AcceptedRequest, E, R>, bodyManifest?: unknown) =>
  replyAfterWait(
    Effect.gen(function* () {
      const request = yield* decodeRequest
      const manifest = bodyManifest ?? (yield* headerManifest)
      return yield* (yield* WalletSpendGate).create(yield* Caller, request, manifest)
    })
  )

/** A body's `manifest` field (as on execute) apart from the request it rides with; the pipeline checks it. */
const splitManifest = (body: unknown): { readonly request: unknown; readonly manifest: unknown } => {
  if (typeof body !== "object" || body === null || Array.isArray(body) || !("manifest" in body)) return { request: body, manifest: undefined }
  const { manifest, ...request } = body as Record<string, unknown>
  return { request, manifest }
}

export const createTransactionHandler = Effect.flatMap(jsonBody, (body) => {
  const { request, manifest } = splitManifest(body)
  return createAndReply(decodeTransactionRequest(request), manifest)
})

export const transactionRoutes = [
  route(TransactionsApi.create, createTransactionHandler, "agent"),
  route(
    TransactionsApi.get,
    Effect.gen(function* () {
      const id = yield* txId
      return transactionReply(yield* (yield* TransactionService).get(yield* Caller, id), 200)
    }),
    "agent"
  ),
  route(
    TransactionsApi.approve,
    Effect.gen(function* () {
      const id = yield* txId
      const body = yield* decodeBody(ApproveBody)
      return transactionReply(yield* (yield* TransactionService).approve(yield* Caller, id, body), 200)
    })
  ),
  route(
    TransactionsApi.reject,
    Effect.gen(function* () {
      const id = yield* txId
      const body = yield* decodeBody(RejectBody)
      return transactionReply(yield* (yield* TransactionService).reject(yield* Caller, id, body.reason), 200)
    })
  ),
  route(
    TransactionsApi.retry,
    Effect.gen(function* () {
      const id = yield* txId
      return retryReply(yield* (yield* TransactionService).retry(yield* Caller, id))
    })
  ),
  route(
    TransactionsApi.proof,
    Effect.gen(function* () {
      const id = yield* txId
      return ok(yield* (yield* TransactionService).proof(yield* Caller, id))
    }),
    "agent"
  ),
  route(
    TransactionsApi.replay,
    Effect.gen(function* () {
      const id = yield* txId
      return ok(yield* (yield* TransactionService).replay(yield* Caller, id))
    }),
    "agent"
  ),
  route(
    TransactionsApi.listByWallet,
    Effect.gen(function* () {
      const id = yield* walletId
      const query = yield* decodeQuery(TransactionListQuery)
      return ok(yield* (yield* TransactionService).listByWallet(yield* Caller, id, query))
    })
  ),
  route(
    TransactionsApi.pendingApprovals,
    Effect.gen(function* () {
      const id = yield* walletId
      const query = yield* decodeQuery(PaginationQuery)
      return ok(yield* (yield* TransactionService).listByWallet(yield* Caller, id, { ...query, status: "approval_gate" }))
    })
  ),
  route(
    OutboxApi.stats,
    Effect.gen(function* () {
      return ok(yield* (yield* Outbox).stats)
    }),
    "deployment"
  )
]
