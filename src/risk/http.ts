/**
 * Risk routes (spec: Endpoints, Risk): protocol risk configs per protocol of the caller's tenant, and
 * portfolio risk controls per wallet. PUT changes only the provided fields (null clears a bound) and
 * creates the record when absent; bps fields are 0-10000 and unknown fields are refused (400). The
 * `<protocol>` is one of the nine protocol identifiers (else 400 naming it); a protocol never
 * configured answers its defaults.
 */
import { Effect, Schema } from "effect"
import { PaginationQuery, Uuid } from "../../schemas/common.js"
import { NotFound } from "../../schemas/errors.js"
import { PortfolioRiskControlsUpdate, ProtocolRiskConfigUpdate } from "../../schemas/policy.js"
import { ProtocolId } from "../../schemas/protocol.js"
import { Caller } from "../gateway/caller.js"
import { ok } from "../gateway/envelope.js"
import { decodeBody, decodeQuery, pathParam } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { RiskApi } from "../../schemas/api/risk.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import { defaultProtocolConfig, DEPLOYMENT_TENANT, RiskConfigRepo } from "./riskConfigRepo.js"
import { shownConfig } from "./protocolLayers.js"
import { portfolioControlsAnswer, protocolConfigAnswer } from "./riskAnswers.js"

/** The layer a caller's protocol config reads and writes: its tenant's, or the deployment-wide one for a key reading every tenant (issue 34). */
const configTenant = (caller: { readonly readTenant: string | null }) => caller.readTenant ?? DEPLOYMENT_TENANT

const protocolParam = pathParam("protocol", Schema.compose(Schema.String, ProtocolId, { strict: false }))
const walletParam = pathParam("walletId", Uuid)

/** The wallet as the caller may see it (404 otherwise), from its owner's repository. */
const visibleWallet = (walletId: string) =>
  Effect.gen(function* () {
    const wallet = yield* (yield* WalletRepo).find(walletId, (yield* Caller).readTenant)
    return wallet === undefined ? yield* Effect.fail(new NotFound({ resource: "wallet", id: walletId })) : wallet
  })

/** A stored row that no longer decodes is an internal error (500), not the caller's fault. */
const orDie = Effect.orDie

export const riskRoutes = [
  route(
    RiskApi.listProtocols,
    Effect.gen(function* () {
      const caller = yield* Caller
      return ok({ protocols: (yield* orDie((yield* RiskConfigRepo).listProtocols(caller.readTenant))).map((config) => protocolConfigAnswer(shownConfig(config))) })
    })
  ),
  route(
    RiskApi.getProtocol,
    Effect.gen(function* () {
      const protocol = yield* protocolParam
      const caller = yield* Caller
      const config = yield* orDie((yield* RiskConfigRepo).findProtocol(configTenant(caller), protocol))
      // Never set: the defaults the engine applies (as portfolio controls answer theirs).
      return ok(protocolConfigAnswer(config === undefined ? defaultProtocolConfig(protocol) : shownConfig(config)))
    })
  ),
  route(
    RiskApi.putProtocol,
    Effect.gen(function* () {
      const protocol = yield* protocolParam
      const body = yield* decodeBody(ProtocolRiskConfigUpdate)
      const caller = yield* Caller
      return ok(protocolConfigAnswer(shownConfig(yield* (yield* RiskConfigRepo).putProtocol(configTenant(caller), protocol, body))))
    })
  ),
  route(
    RiskApi.listPortfolio,
    Effect.gen(function* () {
      const caller = yield* Caller
      const page = yield* decodeQuery(PaginationQuery)
      const listed = yield* (yield* RiskConfigRepo).listPortfolio(caller.readTenant, page)
      return ok({ ...listed, controls: listed.controls.map(portfolioControlsAnswer) })
    })
  ),
  route(
    RiskApi.getPortfolio,
    Effect.gen(function* () {
      const walletId = yield* walletParam
      const wallet = yield* visibleWallet(walletId)
      return ok(portfolioControlsAnswer(yield* orDie((yield* RiskConfigRepo).findPortfolio(walletId, wallet.tenantId))))
    })
  ),
  route(
    RiskApi.putPortfolio,
    Effect.gen(function* () {
      const walletId = yield* walletParam
      const body = yield* decodeBody(PortfolioRiskControlsUpdate)
      const wallet = yield* visibleWallet(walletId)
      return ok(portfolioControlsAnswer(yield* (yield* RiskConfigRepo).putPortfolio(wallet.tenantId, walletId, body)))
    })
  )
]
