/**
 * API key tools (issue 36): issue, list, show, revoke and rotate the operator's keys. They call the gateway
 * with the caller's key, whose routes need the `keys` scope and an operator key (an agent's key is refused);
 * a key never grants more than the caller's own. Issue and rotate answer the new secret, once.
 */
import { Schema } from "effect"
import { API_KEY_STATUSES, ApiKeyIdParams, IssueApiKeyBody, RevokeApiKeyBody, RotateApiKeyBody } from "../../../schemas/apiKey.js"
import { AgentId, Limit, Offset } from "../args.js"
import { KeysApi } from "../../../schemas/api/keys.js"
import { strict } from "../../../schemas/strict.js"
import { apiPath, omit, tool } from "../toolDefinition.js"

const KeyId = ApiKeyIdParams.fields.keyId.annotations({ description: "key id: the 16 hex digits after agck_" })

export const keyTools = [
  tool({
    name: "keys.issue",
    endpoint: KeysApi.issue,
    description:
      "Issue an API key: scopes (required), tenant, agentId (binds it to one agent), expiresAt, label. The answer shows the secret " +
      "once (it is stored only as a hash); every gateway process accepts it within a second. Needs the keys scope; grants at most what the caller holds.",
    args: IssueApiKeyBody,
    readOnly: false,
    request: (args) => ({ method: "POST", path: "/api/v1/keys", body: args })
  }),
  tool({
    name: "keys.list",
    endpoint: KeysApi.list,
    description: "API keys the caller's tenant sees, newest first, never their secrets (status: active, expired or revoked; agentId).",
    args: Schema.Struct({
      status: Schema.optional(Schema.Literal(...API_KEY_STATUSES)),
      agentId: Schema.optional(AgentId),
      limit: Schema.optional(Limit),
      offset: Schema.optional(Offset)
    }).pipe(strict),
    readOnly: true,
    request: (args) => ({ method: "GET", path: "/api/v1/keys", query: args })
  }),
  tool({
    name: "keys.get",
    endpoint: KeysApi.get,
    description: "One API key: tenant, scopes, agent, status, who issued and revoked it, its last use (never its secret).",
    args: Schema.Struct({ keyId: KeyId }).pipe(strict),
    readOnly: true,
    request: (args) => ({ method: "GET", path: apiPath`/api/v1/keys/${args.keyId}` })
  }),
  tool({
    name: "keys.revoke",
    endpoint: KeysApi.revoke,
    description: "Revoke an API key (reason optional): every gateway process refuses it within a second. Cannot be undone.",
    args: Schema.Struct({ keyId: KeyId, ...RevokeApiKeyBody.fields }).pipe(strict),
    idempotent: true,
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/keys/${args.keyId}/revoke`, body: omit(args, "keyId") })
  }),
  tool({
    name: "keys.rotate",
    endpoint: KeysApi.rotate,
    description:
      "Replace an API key by a new one with the same tenant, scopes and agent (the answer shows the new secret once); the old one " +
      "keeps working for graceSeconds (0: it stops now). expiresAt and label apply to the new key.",
    args: Schema.Struct({ keyId: KeyId, ...RotateApiKeyBody.fields }).pipe(strict),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: apiPath`/api/v1/keys/${args.keyId}/rotate`, body: omit(args, "keyId") })
  })
]
