/** The capability manifest riding in x-agent-manifest (base64 JSON), for execute and POST /transactions. */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Either, Schema } from "effect"
import { AGENT_MANIFEST_HEADER, ManifestFromHeader } from "../../schemas/agent.js"

const decodeHeaderManifest = Schema.decodeUnknownEither(ManifestFromHeader)

/** undefined when none is sent; one that does not decode is the string "malformed", refused later. */
export const headerManifest = Effect.map(HttpServerRequest.HttpServerRequest, (request): unknown => {
  const raw = request.headers[AGENT_MANIFEST_HEADER]
  if (raw === undefined || raw.trim() === "") return undefined
  const decoded = decodeHeaderManifest(raw.trim())
  return Either.isRight(decoded) ? decoded.right : "malformed"
})
