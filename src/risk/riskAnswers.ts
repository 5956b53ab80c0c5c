/**
 * Risk configs as the API answers them (spec: Protocol risk config, Portfolio risk controls): every field shown,
 * a bound nobody set as null (no bound) rather than left out, and `updatedAt` null for a config nobody ever set
 * (what is shown are then the defaults the engine applies), never the epoch. Pure.
 */
import type { PortfolioRiskControls, ProtocolRiskConfig } from "../../schemas/policy.js"

/** What the repository writes as the `updatedAt` of defaults that were never stored. */
const NEVER_SET = new Date(0).toISOString()

const setAt = (updatedAt: string) => (updatedAt === NEVER_SET ? null : updatedAt)

export const protocolConfigAnswer = (config: ProtocolRiskConfig) => ({
  ...config,
  maxSlippageBps: config.maxSlippageBps ?? null,
  maxPoolConcentrationBps: config.maxPoolConcentrationBps ?? null,
  oracleDeviationBps: config.oracleDeviationBps ?? null,
  maxQuoteAgeSeconds: config.maxQuoteAgeSeconds ?? null,
  deltaVarianceBpsThreshold: config.deltaVarianceBpsThreshold ?? null,
  updatedAt: setAt(config.updatedAt)
})

export const portfolioControlsAnswer = (controls: PortfolioRiskControls) => ({
  ...controls,
  maxDrawdownLamports: controls.maxDrawdownLamports ?? null,
  maxDailyLossLamports: controls.maxDailyLossLamports ?? null,
  maxExposureBpsPerToken: controls.maxExposureBpsPerToken ?? null,
  maxExposureBpsPerProtocol: controls.maxExposureBpsPerProtocol ?? null,
  updatedAt: setAt(controls.updatedAt)
})
