/**
 * What start-up checks before it loads the service's modules (loading them takes seconds): the
 * configuration, its combinations and the API keys. A refusal names the variable, never a secret's value;
 * GatewayAuth parses the keys again for whatever builds the service another way.
 */
import { Effect, Redacted } from "effect"
import { AppConfig } from "./config.js"
import { parseApiKeys } from "./gateway/apiKeys.js"

export const checkStartupConfig = Effect.gen(function* () {
  const config = yield* AppConfig
  yield* Effect.try({
    try: () => parseApiKeys(Redacted.value(config.gateway.apiKeys)),
    catch: (error) => new Error(error instanceof Error ? error.message : "API_GATEWAY_API_KEYS is malformed")
  })
}).pipe(Effect.provide(AppConfig.Default))
