/** Treasury and strategy routes of the gateway (spec: Treasury, Strategy). */
import { Effect } from "effect"
import { Uuid } from "../../schemas/common.js"
import { BacktestBody, PaperExecuteBody } from "../../schemas/strategy.js"
import { AllocateBody, RebalanceBody } from "../../schemas/treasury.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { Strategy } from "./strategy.js"
import { Treasury } from "./treasury.js"
import { StrategyApi, TreasuryApi } from "../../schemas/api/treasury.js"

export const treasuryRoutes = [
  route(
    TreasuryApi.allocate,
    Effect.gen(function* () {
      const body = yield* decodeBody(AllocateBody)
      const { answer, created } = yield* (yield* Treasury).allocate(yield* Caller, body)
      // A repeated idempotency key answers the allocation it made: 200, not a second 201.
      return ok(answer, created ? 201 : 200)
    })
  ),
  route(
    TreasuryApi.rebalance,
    Effect.gen(function* () {
      const body = yield* decodeBody(RebalanceBody)
      const { answer, created } = yield* (yield* Treasury).rebalance(yield* Caller, body)
      return ok(answer, created ? 201 : 200)
    })
  )
]

export const strategyRoutes = [
  route(
    StrategyApi.backtest,
    Effect.gen(function* () {
      const body = yield* decodeBody(BacktestBody)
      return ok(yield* (yield* Strategy).backtest(yield* Caller, body), 201)
    })
  ),
  route(
    StrategyApi.paperExecute,
    Effect.gen(function* () {
      const body = yield* decodeBody(PaperExecuteBody)
      return ok(yield* (yield* Strategy).paperExecute(yield* Caller, body), 201)
    })
  ),
  route(
    StrategyApi.paperTrades,
    Effect.gen(function* () {
      const agentId = yield* pathParam("agentId", Uuid)
      return ok(yield* (yield* Strategy).listPaperTrades(yield* Caller, agentId))
    })
  )
]
