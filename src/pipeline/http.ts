/** Transaction routes of the gateway (spec: Transactions; wallet lists [n12][n28]; outbox stats). */
import { Effect, Schema } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import { RejectBody } from "../../schemas/transaction.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, jsonBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { type AcceptedRequest, decodeTransactionRequest } from "./acceptIntent.js"
import { Outbox } from "./outbox.js"
import { TransactionService } from "./transactionService.js"
import { createdReply, transactionReply } from "./transactionReply.js"

const txId = pathParam("txId", Uuid)
const walletId = pathParam("walletId", Uuid)

/** `?waitMs=` lets a client wait (at most 30 s) for the transaction to settle before the answer. */
const WaitQuery = Schema.Struct({
  waitMs: Schema.optionalWith(Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 30_000, { message: () => "must be between 0 and 30000" })), { default: () => 0 })
})

const ListQuery = Schema.extend(PaginationQuery, Schema.Struct({ status: Schema.optional(Schema.String) }))

/** Creates the transaction `decodeRequest` yields and answers as POST /transactions does (`?waitMs=`
 *  included); the escrow helpers reuse it with requests they assemble. */
export const createAndReply = <E, R>(decodeRequest: Effect.Effect<AcceptedRequest, E, R>, agentId?: string) =>
  Effect.gen(function* () {
    const { waitMs } = yield* decodeQuery(WaitQuery)
    const request = yield* decodeRequest
    const service = yield* TransactionService
    const { row, created } = yield* service.create(yield* Caller, request, agentId === undefined ? {} : { agentId })
    const settled = waitMs > 0 ? ((yield* service.awaitSettled(row.id, waitMs)) ?? row) : row
    return createdReply(settled, created)
  })

export const createTransactionHandler = (agentId?: string) => createAndReply(Effect.flatMap(jsonBody, decodeTransactionRequest), agentId)

export const transactionRoutes = [
  route("POST", "/api/v1/transactions", createTransactionHandler()),
  route(
    "GET",
    "/api/v1/transactions/:txId",
    Effect.gen(function* () {
      const id = yield* txId
      return transactionReply(yield* (yield* TransactionService).get(yield* Caller, id), 200)
    })
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
    })
  ),
  route(
    "GET",
    "/api/v1/transactions/:txId/replay",
    Effect.gen(function* () {
      const id = yield* txId
      return ok(yield* (yield* TransactionService).replay(yield* Caller, id))
    })
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
    })
  )
]
