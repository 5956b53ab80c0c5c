/** API key endpoints (issue 36, [n19]; docs/decisions/access.md "Issued keys"). */
import { ApiKey, ApiKeyIdParams, ApiKeysQuery, IssueApiKeyBody, IssuedApiKey, RevokeApiKeyBody, RotateApiKeyBody, RotatedApiKey } from "../apiKey.js"
import { Page } from "../common.js"
import { endpoint } from "./endpoint.js"

const ApiKeyResource = ApiKey.annotations({ identifier: "ApiKey" })
const IssuedApiKeyResource = IssuedApiKey.annotations({ identifier: "IssuedApiKey" })

export const KeysApi = {
  issue: endpoint("keys", "POST", "/api/v1/keys", {
    summary: "Issue an API key (the answer shows its secret once)",
    body: IssueApiKeyBody,
    success: IssuedApiKeyResource,
    successStatuses: [201]
  }),
  list: endpoint("keys", "GET", "/api/v1/keys", { summary: "The keys the caller's tenant sees (never their secrets)", query: ApiKeysQuery, success: Page("keys", ApiKeyResource) }),
  get: endpoint("keys", "GET", "/api/v1/keys/:keyId", { summary: "A key", params: ApiKeyIdParams, success: ApiKeyResource }),
  revoke: endpoint("keys", "POST", "/api/v1/keys/:keyId/revoke", {
    summary: "Revoke a key: every gateway process refuses it within a second",
    params: ApiKeyIdParams,
    body: RevokeApiKeyBody,
    success: ApiKeyResource
  }),
  rotate: endpoint("keys", "POST", "/api/v1/keys/:keyId/rotate", {
    summary: "Replace a key by a new one like it (shown once); the old one works for the grace period",
    params: ApiKeyIdParams,
    body: RotateApiKeyBody,
    success: RotatedApiKey.annotations({ identifier: "RotatedApiKey" })
  })
}
