/** RPC pool route (spec: Health and operations): the scored endpoints of this process's pool. */
import { Effect } from "effect"
import { RpcPoolApi } from "../../schemas/api/operations.js"
import { ok } from "../gateway/envelope.js"
import { route } from "../gateway/route.js"
import { ChainClient } from "./chainClient.js"

export const rpcPoolRoutes = [
  route(
    RpcPoolApi.status,
    Effect.gen(function* () {
      const chain = yield* ChainClient
      // URLs are redacted by the pool (no API keys of paid endpoints in a response).
      return ok({ endpoints: chain.pool.status() })
    })
  )
]
