/**
 * Kill switch routes (issue 34 item 3): freeze a tenant, a wallet or an agent, list and read freezes, lift
 * one. Operator keys only (an agent's key is refused by the route's access); scope `risk`.
 */
import { Effect } from "effect"
import { Uuid } from "../../schemas/common.js"
import { FreezeCreate, FreezeLift, FreezeListQuery } from "../../schemas/freeze.js"
import { RiskApi } from "../../schemas/api/risk.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { KillSwitch } from "./killSwitch.js"

const freezeParam = pathParam("freezeId", Uuid)

export const freezeRoutes = [
  route(
    RiskApi.freeze,
    Effect.gen(function* () {
      const body = yield* decodeBody(FreezeCreate)
      const made = yield* (yield* KillSwitch).freeze(yield* Caller, body)
      return ok(made.freeze, made.created ? 201 : 200)
    })
  ),
  route(
    RiskApi.listFreezes,
    Effect.gen(function* () {
      const query = yield* decodeQuery(FreezeListQuery)
      return ok(yield* (yield* KillSwitch).list(yield* Caller, { ...query, activeOnly: query.state === "active" }))
    })
  ),
  route(
    RiskApi.getFreeze,
    Effect.gen(function* () {
      const freezeId = yield* freezeParam
      return ok(yield* (yield* KillSwitch).get(yield* Caller, freezeId))
    })
  ),
  route(
    RiskApi.liftFreeze,
    Effect.gen(function* () {
      const freezeId = yield* freezeParam
      const body = yield* decodeBody(FreezeLift)
      return ok(yield* (yield* KillSwitch).lift(yield* Caller, freezeId, body))
    })
  )
]
