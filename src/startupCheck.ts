/**
 * What start-up checks before it loads the service's modules (loading them takes seconds): the
 * configuration, its combinations and the API keys. A refusal names the variable, never a secret's value;
 * GatewayAuth parses the keys again for whatever builds the service another way.
 */
import { Effect } from "effect"
import { AppConfig } from "./config.js"
import { readApiKeys } from "./gateway/apiKeys.js"

/** The checked configuration (main.ts starts the child servers it names before the modules load). */
export const checkStartupConfig = Effect.gen(function* () {
  const config = yield* AppConfig
  yield* readApiKeys(config.gateway.apiKeys)
  return config
}).pipe(Effect.provide(AppConfig.Default))
