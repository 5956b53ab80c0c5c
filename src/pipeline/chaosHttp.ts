/** Chaos routes (spec: Health and operations): read and change the deployment's chaos config. */
import { Effect } from "effect"
import { ChaosUpdateBody } from "../../schemas/chain.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { Chaos } from "./chaos.js"
import { ChaosApi } from "../../schemas/api/operations.js"

export const chaosRoutes = [
  route(
    ChaosApi.get,
    Effect.gen(function* () {
      return ok(yield* (yield* Chaos).get)
    }),
    "deployment"
  ),
  route(
    ChaosApi.update,
    Effect.gen(function* () {
      const chaos = yield* Chaos
      // Refuse before reading the body: a disabled deployment answers 403 to any PUT.
      if (!chaos.allowed) return ok(yield* chaos.update({}))
      const body = yield* decodeBody(ChaosUpdateBody)
      return ok(yield* chaos.update(body))
    }),
    "deployment"
  )
]
