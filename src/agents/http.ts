/** Agent routes of the gateway (spec: Agents; the autonomy state route belongs to the runtime). */
import { HttpServerRequest } from "@effect/platform"
import { Effect, Either, Schema } from "effect"
import {
  AGENT_MANIFEST_HEADER,
  CreateAgentBody,
  ExecuteBody,
  IssueManifestBody,
  ManifestFromHeader,
  PauseBody,
  UpdateCapabilitiesBody,
  VerifyManifestBody
} from "../../schemas/agent.js"
import { Uuid } from "../../schemas/common.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { TransactionService } from "../pipeline/transactionService.js"
import { AgentExecution } from "./agentExecution.js"
import { AgentService } from "./agentService.js"
import type { AgentAction } from "./agentTransitions.js"
import { ManifestStore, RevokeManifestBody } from "./manifestStore.js"
import { createdReply } from "../pipeline/transactionReply.js"

const agentId = pathParam("agentId", Uuid)

/** `?waitMs=` as on POST /transactions: wait (at most 30 s) for the transaction to settle. */
const WaitQuery = Schema.Struct({
  waitMs: Schema.optionalWith(
    Schema.NumberFromString.pipe(Schema.int(), Schema.between(0, 30_000, { message: () => "must be between 0 and 30000" })),
    { default: () => 0 }
  )
})

const decodeHeaderManifest = Schema.decodeUnknownEither(ManifestFromHeader)

/** The manifest riding in x-agent-manifest (base64 JSON); one that does not decode is refused as malformed later. */
const headerManifest = Effect.map(HttpServerRequest.HttpServerRequest, (request): unknown => {
  const raw = request.headers[AGENT_MANIFEST_HEADER]
  if (raw === undefined || raw.trim() === "") return undefined
  const decoded = decodeHeaderManifest(raw.trim())
  return Either.isRight(decoded) ? decoded.right : "malformed"
})

const transitionRoute = (action: AgentAction) =>
  route(
    "POST",
    `/api/v1/agents/:agentId/${action}`,
    Effect.gen(function* () {
      const id = yield* agentId
      const reason = action === "pause" ? (yield* decodeBody(PauseBody)).reason : undefined
      return ok(yield* (yield* AgentService).transition(yield* Caller, id, action, reason))
    })
  )

export const agentRoutes = [
  route(
    "POST",
    "/api/v1/agents",
    Effect.gen(function* () {
      const body = yield* decodeBody(CreateAgentBody)
      return ok(yield* (yield* AgentService).create(yield* Caller, body), 201)
    })
  ),
  route(
    "GET",
    "/api/v1/agents",
    Effect.gen(function* () {
      return ok(yield* (yield* AgentService).list(yield* Caller))
    })
  ),
  route(
    "GET",
    "/api/v1/agents/:agentId",
    Effect.gen(function* () {
      const id = yield* agentId
      return ok((yield* (yield* AgentService).get(yield* Caller, id)).agent)
    })
  ),
  route(
    "PUT",
    "/api/v1/agents/:agentId/capabilities",
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
    "GET",
    "/api/v1/agents/:agentId/budget",
    Effect.gen(function* () {
      const id = yield* agentId
      return ok(yield* (yield* AgentService).budget(yield* Caller, id))
    })
  ),
  route(
    "POST",
    "/api/v1/agents/:agentId/manifest/issue",
    Effect.gen(function* () {
      const id = yield* agentId
      const body = yield* decodeBody(IssueManifestBody)
      const caller = yield* Caller
      const stored = yield* (yield* AgentService).get(caller, id)
      return ok(yield* (yield* ManifestStore).issue(caller, stored, body), 201)
    })
  ),
  route(
    "POST",
    "/api/v1/agents/:agentId/manifest/verify",
    Effect.gen(function* () {
      const id = yield* agentId
      const body = yield* decodeBody(VerifyManifestBody)
      const stored = yield* (yield* AgentService).get(yield* Caller, id)
      return ok(yield* (yield* ManifestStore).verify(stored, body.manifest))
    })
  ),
  route(
    "POST",
    "/api/v1/agents/:agentId/manifest/revoke",
    Effect.gen(function* () {
      const id = yield* agentId
      const body = yield* decodeBody(RevokeManifestBody)
      const caller = yield* Caller
      const stored = yield* (yield* AgentService).get(caller, id)
      return ok(yield* (yield* ManifestStore).revoke(caller, stored, body))
    })
  ),
  route(
    "POST",
    "/api/v1/agents/:agentId/execute",
    Effect.gen(function* () {
      const id = yield* agentId
      const { waitMs } = yield* decodeQuery(WaitQuery)
      const { manifest: bodyManifest, ...order } = yield* decodeBody(ExecuteBody)
      // The body field wins over the header ([agent] in docs/decisions/schemas.md).
      const manifest = bodyManifest ?? (yield* headerManifest)
      const caller = yield* Caller
      const { row, created } = yield* (yield* AgentExecution).execute(caller, id, { order, manifest })
      const settled = waitMs > 0 ? ((yield* (yield* TransactionService).awaitSettled(row.id, waitMs)) ?? row) : row
      return createdReply(settled, created)
    })
  )
]
