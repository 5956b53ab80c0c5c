/** Risk endpoints (spec: Endpoints, Risk): protocol risk configs and portfolio risk controls. */
import * as Schema from "effect/Schema"
import { PortfolioRiskControls, PortfolioRiskControlsUpdate, ProtocolRiskConfig, ProtocolRiskConfigUpdate } from "../policy.js"
import { ProtocolId } from "../protocol.js"
import { Freeze, FreezeCreate, FreezeIdParams, FreezeLift, FreezeListQuery } from "../freeze.js"
import { Page, PageFields, PaginationQuery, Timestamp } from "../common.js"
import { ValueLimitParams, ValueLimits, ValueLimitsUpdate } from "../valueLimits.js"
import { endpoint } from "./endpoint.js"
import { WalletIdParams } from "./wallets.js"

export const ProtocolParams = Schema.Struct({ protocol: ProtocolId })

const Bps = ProtocolRiskConfig.fields.oracleDeviationBps.from
const AmountBound = PortfolioRiskControls.fields.maxDrawdownLamports.from

/**
 * A protocol risk config as answered: every field of the spec, a bound nobody set as null (no bound), and
 * `updatedAt` null for a config nobody ever set (its defaults).
 */
export const ProtocolRiskConfigAnswer = Schema.Struct({
  ...ProtocolRiskConfig.fields,
  maxSlippageBps: Schema.NullOr(Bps),
  maxPoolConcentrationBps: Schema.NullOr(Bps),
  oracleDeviationBps: Schema.NullOr(Bps),
  maxQuoteAgeSeconds: Schema.NullOr(ProtocolRiskConfig.fields.maxQuoteAgeSeconds.from),
  deltaVarianceBpsThreshold: Schema.NullOr(Bps),
  updatedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "ProtocolRiskConfig" })

/** Portfolio risk controls as answered: every field, null for no limit, `updatedAt` null when never set. */
export const PortfolioRiskControlsAnswer = Schema.Struct({
  ...PortfolioRiskControls.fields,
  maxDrawdownLamports: Schema.NullOr(AmountBound),
  maxDailyLossLamports: Schema.NullOr(AmountBound),
  maxExposureBpsPerToken: Schema.NullOr(Bps),
  maxExposureBpsPerProtocol: Schema.NullOr(Bps),
  updatedAt: Schema.NullOr(Timestamp)
}).annotations({ identifier: "PortfolioRiskControls" })

export const RiskApi = {
  listProtocols: endpoint("risk", "GET", "/api/v1/risk/protocols", {
    summary: "The tenant's protocol risk configs",
    success: Schema.Struct({ protocols: Schema.Array(ProtocolRiskConfigAnswer) })
  }),
  getProtocol: endpoint("risk", "GET", "/api/v1/risk/protocols/:protocol", {
    summary: "A protocol's risk config (its defaults when never set)",
    params: ProtocolParams,
    success: ProtocolRiskConfigAnswer
  }),
  putProtocol: endpoint("risk", "PUT", "/api/v1/risk/protocols/:protocol", {
    summary: "Change a protocol's risk config (given fields only; null clears a bound)",
    params: ProtocolParams,
    body: ProtocolRiskConfigUpdate,
    success: ProtocolRiskConfigAnswer
  }),
  listPortfolio: endpoint("risk", "GET", "/api/v1/risk/portfolio", {
    summary: "The tenant's portfolio risk controls, by wallet id",
    query: PaginationQuery,
    success: Schema.Struct({ controls: Schema.Array(PortfolioRiskControlsAnswer), ...PageFields })
  }),
  getPortfolio: endpoint("risk", "GET", "/api/v1/risk/portfolio/:walletId", {
    summary: "A wallet's portfolio risk controls",
    params: WalletIdParams,
    success: PortfolioRiskControlsAnswer
  }),
  putPortfolio: endpoint("risk", "PUT", "/api/v1/risk/portfolio/:walletId", {
    summary: "Change a wallet's portfolio risk controls (given fields only; null clears a limit)",
    params: WalletIdParams,
    body: PortfolioRiskControlsUpdate,
    success: PortfolioRiskControlsAnswer
  }),
  freeze: endpoint("risk", "POST", "/api/v1/risk/freezes", {
    summary: "Kill switch: freeze a tenant, a wallet or an agent (nothing of it is signed from the commit on); 200 with the active freeze when it is frozen already",
    body: FreezeCreate,
    success: Freeze,
    successStatuses: [201, 200]
  }),
  listFreezes: endpoint("risk", "GET", "/api/v1/risk/freezes", {
    summary: "Freezes of the tenant, newest first (state=active, the default, or all)",
    query: FreezeListQuery,
    success: Page("freezes", Freeze)
  }),
  getFreeze: endpoint("risk", "GET", "/api/v1/risk/freezes/:freezeId", {
    summary: "One freeze",
    params: FreezeIdParams,
    success: Freeze
  }),
  liftFreeze: endpoint("risk", "POST", "/api/v1/risk/freezes/:freezeId/lift", {
    summary: "Lift a freeze (an operator act); a lifted freeze is answered as it is",
    params: FreezeIdParams,
    body: FreezeLift,
    success: Freeze
  }),
  getValueLimits: endpoint("risk", "GET", "/api/v1/risk/value-limits/:scope/:targetId", {
    summary: "A wallet's or an agent's value limits (USD or SOL over rolling windows) with what each window used and has left",
    params: ValueLimitParams,
    success: ValueLimits
  }),
  putValueLimits: endpoint("risk", "PUT", "/api/v1/risk/value-limits/:scope/:targetId", {
    summary: "Set a wallet's or an agent's value limits (the whole set; [] clears it)",
    params: ValueLimitParams,
    body: ValueLimitsUpdate,
    success: ValueLimits
  })
}
