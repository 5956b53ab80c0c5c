/** Wallet routes of the gateway (spec: Endpoints, Wallets). */
import { Effect, Schema } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import { CreateWalletBody, WalletListQuery } from "../../schemas/wallet.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { WalletService } from "./walletService.js"
import { WalletsApi } from "../../schemas/api/wallets.js"

const walletId = pathParam("walletId", Uuid)

const WalletListPageQuery = Schema.extend(PaginationQuery, WalletListQuery)

export const walletRoutes = [
  route(
    WalletsApi.create,
    Effect.gen(function* () {
      const body = yield* decodeBody(CreateWalletBody)
      const caller = yield* Caller
      // A create repeated with its idempotency key answers the wallet it made: 200, not a second 201.
      const { wallet, created } = yield* (yield* WalletService).create(caller, body)
      return ok(wallet, created ? 201 : 200)
    })
  ),
  route(
    WalletsApi.list,
    Effect.gen(function* () {
      const query = yield* decodeQuery(WalletListPageQuery)
      const caller = yield* Caller
      return ok(yield* (yield* WalletService).list(caller, query))
    })
  ),
  route(
    WalletsApi.get,
    Effect.gen(function* () {
      const id = yield* walletId
      const stored = yield* (yield* WalletService).get(yield* Caller, id)
      return ok(stored.wallet)
    })
  ),
  route(
    WalletsApi.balance,
    Effect.gen(function* () {
      const id = yield* walletId
      return ok(yield* (yield* WalletService).balance(yield* Caller, id))
    })
  ),
  route(
    WalletsApi.tokens,
    Effect.gen(function* () {
      const id = yield* walletId
      return ok(yield* (yield* WalletService).tokens(yield* Caller, id))
    })
  )
]
