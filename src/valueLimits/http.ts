/**
 * Value limit routes (issue 34 item 1): a wallet's or an agent's limits of the value it moves over rolling
 * windows, in USD or SOL, and their use now (used, remaining, window). The wallet or agent must be the
 * caller's (404 otherwise); a window of 0, an unknown currency or a maximum finer than the currency's unit is
 * a 400 naming the field, and changes nothing. Scope `risk`; operator keys set them, an agent reads its own.
 */
import { Effect, Schema } from "effect"
import { Uuid } from "../../schemas/common.js"
import { NotFound, ValidationError } from "../../schemas/errors.js"
import { RiskApi } from "../../schemas/api/risk.js"
import { ValueLimitScope, ValueLimitsUpdate } from "../../schemas/valueLimits.js"
import { AgentRepo } from "../agents/agentRepo.js"
import { actingAgent, Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { toUnits, ValueLimitStore } from "../risk/valueLimits.js"
import { WalletRepo } from "../wallet/walletRepo.js"

const scopeParam = pathParam("scope", Schema.compose(Schema.String, ValueLimitScope, { strict: false }))
const targetParam = pathParam("targetId", Uuid)

/** The tenant of the wallet or agent the caller may see (an agent's key: only itself and its wallet), else 404. */
const visibleTarget = (scope: "wallet" | "agent", targetId: string) =>
  Effect.gen(function* () {
    const caller = yield* Caller
    const self = actingAgent(caller)
    if (scope === "wallet") {
      const wallet = yield* (yield* WalletRepo).find(targetId, caller.readTenant)
      const own = self === null || (yield* (yield* AgentRepo).find(self, caller.readTenant))?.agent.walletId === targetId
      return wallet === undefined || !own ? yield* Effect.fail(new NotFound({ resource: "wallet", id: targetId })) : wallet.tenantId
    }
    const agent = yield* (yield* AgentRepo).find(targetId, caller.readTenant)
    return agent === undefined || (self !== null && self !== targetId) ? yield* Effect.fail(new NotFound({ resource: "agent", id: targetId })) : agent.tenantId
  })

export const valueLimitRoutes = [
  route(
    RiskApi.getValueLimits,
    Effect.gen(function* () {
      const scope = yield* scopeParam
      const targetId = yield* targetParam
      const tenantId = yield* visibleTarget(scope, targetId)
      return ok(yield* (yield* ValueLimitStore).state(scope, targetId, tenantId, new Date()))
    }),
    "agent"
  ),
  route(
    RiskApi.putValueLimits,
    Effect.gen(function* () {
      // The body first: a refused body names its field whatever the path says.
      const body = yield* decodeBody(ValueLimitsUpdate)
      const scope = yield* scopeParam
      const targetId = yield* targetParam
      const units: Array<bigint> = []
      for (const [index, limit] of body.limits.entries()) {
        const max = toUnits(limit.currency, limit.max)
        if (max === undefined) {
          return yield* Effect.fail(new ValidationError({ message: `limits[${index}].max: ${limit.currency} has at most ${limit.currency === "USD" ? 6 : 9} decimals`, field: `limits[${index}].max` }))
        }
        units.push(max)
      }
      const tenantId = yield* visibleTarget(scope, targetId)
      return ok(yield* (yield* ValueLimitStore).put(scope, targetId, tenantId, body, units))
    })
  )
]
