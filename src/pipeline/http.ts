/** Transaction routes of the gateway (spec: Transactions; wallet lists [n12][n28]; outbox stats). */
import { Effect, Schema } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import { RejectBody } from "../../schemas/transaction.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, jsonBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { headerManifest } from "../agents/manifestHeader.js"
import { WalletSpend } from "../agents/walletSpend.js"
import { type AcceptedRequest, decodeTransactionRequest } from "./acceptIntent.js"
import { Outbox } from "./outbox.js"
import { TransactionService } from "./transactionService.js"
import { createdReply, transactionReply } from "./transactionReply.js"
import type { TransactionRow } from "./transactionRow.js"
import { MAX_WAIT_MS, TransactionWaits } from "./transactionWaits.js"

const txId = pathParam("txId", Uuid)
const walletId = pathParam("walletId", Uuid)

/**
 * `?waitMs=` (0-30000): how long a create waits for the transaction to be confirmed, failed or at the
 * approval gate before it answers; without it the configured default (TX_CREATE_WAIT_MS) applies.
 */
const WaitQuery = Schema.Struct({
  waitMs: Schema.optional(
    Schema.NumberFromString.pipe(Schema.int({ message: () => "must be an integer" }), Schema.between(0, MAX_WAIT_MS, { message: () => `must be between 0 and ${MAX_WAIT_MS}` }))
  )
})

const ListQuery = Schema.extend(PaginationQuery, Schema.Struct({ status: Schema.optional(Schema.String) }))

/**
 * Runs `create` and answers with the state the transaction reached within the request's wait
 * (transactionWaits.ts): 201 confirmed or still running, 202 at the approval gate, or the failure.
 * Shared by POST /transactions, /agents/<id>/execute and the escrow helpers.
 */
export const replyAfterWait = <E, R>(create: Effect.Effect<{ readonly row: TransactionRow; readonly created: boolean }, E, R>) =>
  Effect.gen(function* () {
    const { waitMs } = yield* decodeQuery(WaitQuery)
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
      return yield* (yield* WalletSpend).create(yield* Caller, request, manifest)
    })
  )

/** A body's `manifest` field (as on execute), when it is an object. */
const manifestField = (body: unknown): unknown =>
  typeof body === "object" && body !== null && "manifest" in body ? (body as { manifest: unknown }).manifest : undefined

export const createTransactionHandler = Effect.flatMap(jsonBody, (body) => createAndReply(decodeTransactionRequest(body), manifestField(body)))

export const transactionRoutes = [
  route("POST", "/api/v1/transactions", createTransactionHandler, "agent"),
  route(
    "GET",
    "/api/v1/transactions/:txId",
    Effect.gen(function* () {
      const id = yield* txId
      return transactionReply(yield* (yield* TransactionService).get(yield* Caller, id), 200)
    }),
    "agent"
  ),
  route(
    "POST",
    "/api/v1/transactions/:txId/approve",
    Effect.gen(function* () {
      const id = yield* txId
      return transactionReply(yield* (yield* TransactionService).approve(yield* Caller, id), 200)
    })
  ),
  route(
    "POST",
    "/api/v1/transactions/:txId/reject",
    Effect.gen(function* () {
      const id = yield* txId
      const body = yield* decodeBody(RejectBody)
      return transactionReply(yield* (yield* TransactionService).reject(yield* Caller, id, body.reason), 200)
    })
  ),
  route(
    "POST",
    "/api/v1/transactions/:txId/retry",
    Effect.gen(function* () {
      const id = yield* txId
      return transactionReply(yield* (yield* TransactionService).retry(yield* Caller, id), 202)
    })
  ),
  route(
    "GET",
    "/api/v1/transactions/:txId/proof",
    Effect.gen(function* () {
      const id = yield* txId
      return ok(yield* (yield* TransactionService).proof(yield* Caller, id))
    }),
    "agent"
  ),
  route(
    "GET",
    "/api/v1/transactions/:txId/replay",
    Effect.gen(function* () {
      const id = yield* txId
      return ok(yield* (yield* TransactionService).replay(yield* Caller, id))
    }),
    "agent"
  ),
  route(
    "GET",
    "/api/v1/wallets/:walletId/transactions",
    Effect.gen(function* () {
      const id = yield* walletId
      const query = yield* decodeQuery(ListQuery)
      return ok(yield* (yield* TransactionService).listByWallet(yield* Caller, id, query))
    })
  ),
  route(
    "GET",
    "/api/v1/wallets/:walletId/pending-approvals",
    Effect.gen(function* () {
      const id = yield* walletId
      const query = yield* decodeQuery(PaginationQuery)
      return ok(yield* (yield* TransactionService).listByWallet(yield* Caller, id, { ...query, status: "approval_gate" }))
    })
  ),
  route(
    "GET",
    "/api/v1/outbox/stats",
    Effect.gen(function* () {
      return ok(yield* (yield* Outbox).stats)
    }),
    "deployment"
  )
]
