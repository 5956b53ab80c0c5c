/**
 * API key routes (issue 36, [n19]): scope `keys`, operator keys only (an agent's key is refused), each
 * key in the caller's tenant (docs/decisions/access.md "Issued keys"). The secret is in the answer of
 * issue and rotate only.
 */
import { Effect } from "effect"
import { ApiKeyIdParams, ApiKeysQuery, IssueApiKeyBody, RevokeApiKeyBody, RotateApiKeyBody } from "../../schemas/apiKey.js"
import { KeysApi } from "../../schemas/api/keys.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { KeyService } from "./keyService.js"

const keyId = pathParam("keyId", ApiKeyIdParams.fields.keyId)

export const keyRoutes = [
  route(
    KeysApi.issue,
    Effect.gen(function* () {
      const body = yield* decodeBody(IssueApiKeyBody)
      return ok(yield* (yield* KeyService).issue(yield* Caller, body), 201)
    })
  ),
  route(
    KeysApi.list,
    Effect.gen(function* () {
      const query = yield* decodeQuery(ApiKeysQuery)
      return ok(yield* (yield* KeyService).list(yield* Caller, query))
    })
  ),
  route(
    KeysApi.get,
    Effect.gen(function* () {
      const id = yield* keyId
      return ok(yield* (yield* KeyService).get(yield* Caller, id))
    })
  ),
  route(
    KeysApi.revoke,
    Effect.gen(function* () {
      const body = yield* decodeBody(RevokeApiKeyBody)
      const id = yield* keyId
      return ok(yield* (yield* KeyService).revoke(yield* Caller, id, body.reason ?? null))
    })
  ),
  route(
    KeysApi.rotate,
    Effect.gen(function* () {
      const body = yield* decodeBody(RotateApiKeyBody)
      const id = yield* keyId
      return ok(yield* (yield* KeyService).rotate(yield* Caller, id, body))
    })
  )
]
