/** The gateway's authentication settings: read once from configuration, with the key ring of issued keys. */
import { Effect } from "effect"
import { AppConfig } from "../config.js"
import { readApiKeys } from "./apiKeys.js"
import type { AuthSettings } from "./authenticate.js"
import { AuthFailureLimiter } from "./authFailureLimiter.js"
import { KeyRing } from "./keyRing.js"
import { FixedWindowRateLimiter } from "./rateLimiter.js"

export class GatewayAuth extends Effect.Service<GatewayAuth>()("GatewayAuth", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const keys = yield* readApiKeys(config.gateway.apiKeys)
    const settings: AuthSettings = {
      enforceAuth: config.gateway.enforceAuth,
      keys,
      keyRing: yield* KeyRing,
      rateLimiter: new FixedWindowRateLimiter(config.gateway.rateLimitPerMinute),
      authFailures: new AuthFailureLimiter(config.gateway.authFailuresPerMinute)
    }
    return { settings }
  })
}) {}
