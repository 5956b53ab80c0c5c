/** Agent routes of the gateway (spec: Agents; the autonomy state route belongs to the runtime). */
import { Effect, Schema } from "effect"
import {
  CreateAgentBody,
  ExecuteBody,
  IssueManifestBody,
  PauseBody,
  RevokeManifestBody,
  UpdateCapabilitiesBody,
  VerifyManifestBody
} from "../../schemas/agent.js"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { replyAfterWait } from "../pipeline/http.js"
import { AgentExecution } from "./agentExecution.js"
import { AgentService } from "./agentService.js"
import type { AgentAction } from "./agentTransitions.js"
import { headerManifest } from "../pipeline/manifestHeader.js"
import { ManifestStore } from "./manifestStore.js"
import { AgentsApi } from "../../schemas/api/agents.js"

const agentId = pathParam("agentId", Uuid)

const transitionRoute = (action: AgentAction) =>
  route(
    AgentsApi[action],
    Effect.gen(function* () {
      const id = yield* agentId
      const reason = action === "pause" ? (yield* decodeBody(PauseBody)).reason : undefined
      return ok(yield* (yield* AgentService).transition(yield* Caller, id, action, reason))
    })
  )

export const agentRoutes = [
  route(
    AgentsApi.create,
    Effect.gen(function* () {
      const body = yield* decodeBody(CreateAgentBody)
      // A create repeated with its idempotency key answers the agent it made: 200, not a second 201.
      const { agent, created } = yield* (yield* AgentService).create(yield* Caller, body)
      return ok(agent, created ? 201 : 200)
    })
  ),
  route(
    AgentsApi.list,
    Effect.gen(function* () {
      const page = yield* decodeQuery(PaginationQuery)
      return ok(yield* (yield* AgentService).list(yield* Caller, page))
    }),
    "agent"
  ),
  route(
    AgentsApi.get,
    Effect.gen(function* () {
      const id = yield* agentId
      return ok((yield* (yield* AgentService).get(yield* Caller, id)).agent)
    }),
    "agent"
  ),
  route(
    AgentsApi.updateCapabilities,
    Effect.gen(function* () {
      const id = yield* agentId
      const body = yield* decodeBody(UpdateCapabilitiesBody)
      return ok(yield* (yield* AgentService).updateCapabilities(yield* Caller, id, body))
    })
  ),
  transitionRoute("start"),
  transitionRoute("stop"),
  transitionRoute("pause"),
  transitionRoute("resume"),
  route(
    AgentsApi.budget,
    Effect.gen(function* () {
      const id = yield* agentId
      return ok(yield* (yield* AgentService).budget(yield* Caller, id))
    }),
    "agent"
  ),
  route(
    AgentsApi.issueManifest,
    Effect.gen(function* () {
      const id = yield* agentId
      const body = yield* decodeBody(IssueManifestBody)
      const caller = yield* Caller
      const stored = yield* (yield* AgentService).get(caller, id)
      return ok(yield* (yield* ManifestStore).issue(caller, stored, body), 201)
    })
  ),
  route(
    AgentsApi.verifyManifest,
    Effect.gen(function* () {
      const id = yield* agentId
      const body = yield* decodeBody(VerifyManifestBody)
      const stored = yield* (yield* AgentService).get(yield* Caller, id)
      return ok(yield* (yield* ManifestStore).verify(stored, body.manifest))
    }),
    "agent"
  ),
  route(
    AgentsApi.revokeManifest,
    Effect.gen(function* () {
      const id = yield* agentId
      const body = yield* decodeBody(RevokeManifestBody)
      const caller = yield* Caller
      const stored = yield* (yield* AgentService).get(caller, id)
      return ok(yield* (yield* ManifestStore).revoke(caller, stored, body))
    })
  ),
  route(
    AgentsApi.execute,
    Effect.gen(function* () {
      const id = yield* agentId
      return yield* replyAfterWait(
        Effect.gen(function* () {
          const { manifest: bodyManifest, ...order } = yield* decodeBody(ExecuteBody)
          // The body field wins over the header ([agent] in docs/decisions/schemas.md).
          const manifest = bodyManifest ?? (yield* headerManifest)
          return yield* (yield* AgentExecution).execute(yield* Caller, id, { order, manifest })
        })
      )
    }),
    "agent"
  )
]
