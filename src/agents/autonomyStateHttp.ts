/** GET /api/v1/agents/<agentId>/autonomy/state: the agent runtime's view of one agent ([n5]). */
import { Effect } from "effect"
import { Uuid } from "../../schemas/common.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { AgentService } from "./agentService.js"
import { autonomyState } from "./runtime/autonomyState.js"
import { AgentsApi } from "../../schemas/api/agents.js"

export const autonomyStateRoutes = [
  route(
    AgentsApi.autonomyState,
    Effect.gen(function* () {
      const id = yield* pathParam("agentId", Uuid)
      const stored = yield* (yield* AgentService).get(yield* Caller, id)
      return ok(yield* autonomyState(stored))
    }),
    "agent"
  )
]
