/**
 * GET /api/v1/wallets/<walletId>/positions ([n12], docs/decisions/staking.md): the same positions a
 * query_positions intent answers, read directly (no transaction row), for a wallet the caller's tenant holds.
 */
import { Effect } from "effect"
import { PositionsApi } from "../../schemas/api/positions.js"
import { Uuid } from "../../schemas/common.js"
import { NotFound, UpstreamUnavailable } from "../../schemas/errors.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import { WalletPositions } from "./walletPositions.js"

export const positionRoutes = [
  route(
    PositionsApi.list,
    Effect.gen(function* () {
      const walletId = yield* pathParam("walletId", Uuid)
      const stored = yield* (yield* WalletRepo).find(walletId, (yield* Caller).readTenant)
      if (stored === undefined) return yield* new NotFound({ resource: "wallet", id: walletId })
      const positions = yield* (yield* WalletPositions).positionsOf(stored.tenantId, walletId, stored.wallet.publicKey).pipe(
        Effect.mapError((error) => new UpstreamUnavailable({ message: `ledger RPC unavailable: ${error.message}` }))
      )
      return ok({ walletId, ...positions })
    })
  )
]
