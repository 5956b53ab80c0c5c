/**
 * The pipeline's checks before policy, pure: gasless eligibility, the protocol risk config of the
 * intent's protocol (spec order: slippage, pools, programs, pool concentration against the
 * pre-balance, quote age, oracle deviation), then the wallet's portfolio risk controls.
 */
import type { TransactionEffect } from "../../schemas/effect.js"
import type { EvaluateRequest, PortfolioRiskControls, ProtocolRiskConfig } from "../../schemas/policy.js"
import { portfolioRiskChecks } from "./portfolioRiskChecks.js"
import { protocolRiskChecks } from "./protocolRiskChecks.js"
import type { PortfolioMetrics } from "./evaluationState.js"
import { ALLOW, combineOutcomes, deny, type RuleOutcome } from "./outcome.js"
import type { EffectiveProtocolConfig } from "../risk/protocolLayers.js"

/** What the pipeline knows about a transaction when it asks for a decision. */
export interface TransactionRiskInput {
  readonly txId: string
  readonly tenantId: string
  readonly walletId: string
  readonly agentId: string | null
  readonly type: string
  readonly protocol: string
  readonly intent: Record<string, unknown>
  readonly facts: {
    readonly destination?: string | undefined
    readonly tokenMint?: string | undefined
    readonly amountLamports?: bigint | undefined
    /** base units of `tokenMint` the transaction moves (transfer_spl: what leaves the wallet) */
    readonly tokenAmount?: bigint | undefined
    readonly programIds: ReadonlyArray<string>
    readonly slippageBps?: number | undefined
    readonly pool?: string | undefined
    readonly pools?: ReadonlyArray<string> | undefined
    /** a swap's output mint */
    readonly outputMint?: string | undefined
    readonly quoteAgeSeconds?: number | undefined
    readonly oracleDeviationBps?: number | undefined
    /** a swap's oracle price was too old to compare: why */
    readonly oracleUnavailable?: string | undefined
    /** the simulated whole effect on the wallet (issue 31); absent for a message, which has none on chain */
    readonly effect?: TransactionEffect | undefined
  }
  readonly preBalanceLamports: bigint
  readonly gasless: boolean
  readonly requireApproval: boolean
  readonly timestamp: Date
  readonly traceId?: string | undefined
}

export const gaslessCheck = (
  input: Pick<TransactionRiskInput, "gasless" | "protocol">,
  config: ProtocolRiskConfig | undefined,
  relayConfigured: boolean
): RuleOutcome => {
  if (!input.gasless) return ALLOW
  if (config?.gaslessEligible !== true) return deny(`gasless: protocol ${input.protocol} is not gaslessEligible in its protocol risk config`)
  if (!relayConfigured) return deny("gasless: GASLESS_RPC_URL is not configured")
  return ALLOW
}

/** The protocol's effective risk config (its tenant's layer over the deployment's); the deployment's allowlists are checked too. */
export const protocolConfigCheck = (input: TransactionRiskInput, config: EffectiveProtocolConfig | undefined): RuleOutcome => {
  if (config === undefined) return ALLOW
  const facts = {
    type: input.type,
    slippageBps: input.facts.slippageBps,
    pool: input.facts.pool,
    pools: input.facts.pools,
    programIds: input.facts.programIds,
    amountLamports: input.facts.amountLamports,
    preBalanceLamports: input.preBalanceLamports,
    quoteAgeSeconds: input.facts.quoteAgeSeconds,
    oracleDeviationBps: input.facts.oracleDeviationBps,
    oracleUnavailable: input.facts.oracleUnavailable
  }
  const own = protocolRiskChecks(config, facts, `protocol risk (${input.protocol} config v${config.version})`)
  return config.inherited === undefined
    ? own
    : combineOutcomes([own, protocolRiskChecks(config.inherited, facts, `protocol risk (${input.protocol} deployment-wide config)`)])
}

export const hasPortfolioLimits = (controls: PortfolioRiskControls): boolean =>
  controls.maxDrawdownLamports !== undefined ||
  controls.maxDailyLossLamports !== undefined ||
  controls.maxExposureBpsPerToken !== undefined ||
  controls.maxExposureBpsPerProtocol !== undefined

export const portfolioControlsCheck = (controls: PortfolioRiskControls, metrics: PortfolioMetrics | undefined, unavailableReason?: string): RuleOutcome =>
  portfolioRiskChecks(controls, metrics, "portfolio risk controls", unavailableReason)

/** The on-demand approval flag of the transaction (spec: approval_gate transition). */
export const approvalRequestedCheck = (requireApproval: boolean): RuleOutcome =>
  requireApproval ? { decision: "require_approval", reasons: ["approval was requested for this transaction"] } : ALLOW

/** The request the policy evaluator sees for a real transaction (the pipeline's facts, its clock, no hint). */
export const toRequest = (input: TransactionRiskInput): EvaluateRequest => ({
  walletId: input.walletId,
  type: input.type,
  protocol: input.protocol,
  timestamp: input.timestamp,
  programIds: input.facts.programIds,
  ...(input.agentId === null ? {} : { agentId: input.agentId }),
  ...(input.facts.destination === undefined ? {} : { destination: input.facts.destination }),
  ...(input.facts.tokenMint === undefined ? {} : { tokenMint: input.facts.tokenMint }),
  ...(input.facts.amountLamports === undefined ? {} : { amountLamports: input.facts.amountLamports }),
  ...(input.facts.slippageBps === undefined ? {} : { slippageBps: input.facts.slippageBps })
})
