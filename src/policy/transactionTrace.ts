/**
 * The trace recorded with a transaction's decision (issue 34 item 2): the policies' rules (explainDecision.ts)
 * and the pipeline's checks before them, each with what it saw, its limit and its verdict, so `/replay` shows
 * why the transaction was allowed, denied or sent to approval.
 */
import type { PolicyDecision, PortfolioRiskControls, RuleTrace } from "../../schemas/policy.js"
import type { EffectiveProtocolConfig } from "../risk/protocolLayers.js"
import type { CompiledPolicy } from "./compileRules.js"
import type { EvaluationState } from "./evaluationState.js"
import { checkEntries, explainPolicies } from "./explainDecision.js"
import { ALLOW } from "./outcome.js"
import { approvalRequestedCheck, gaslessCheck, portfolioControlsCheck, protocolConfigCheck, toRequest, type TransactionRiskInput } from "./transactionRisk.js"

export interface TraceInput {
  readonly input: TransactionRiskInput
  readonly protocolConfig: EffectiveProtocolConfig | undefined
  readonly controls: PortfolioRiskControls
  readonly policies: ReadonlyArray<CompiledPolicy>
  readonly state: EvaluationState
  readonly relayConfigured: boolean
  readonly valueLimitsDenied: ReadonlyArray<string>
  readonly value: { readonly lamports: bigint; readonly microUsd: bigint } | undefined
}

export const transactionTrace = (traced: TraceInput): ReadonlyArray<RuleTrace> => {
  const { input, protocolConfig, controls, state } = traced
  const { inherited: _inherited, layers: _layers, updatedAt: _updatedAt, ...configLimits } = protocolConfig ?? { updatedAt: "" }
  const { walletId: _walletId, updatedAt: _controlsUpdatedAt, ...controlLimits } = controls
  const checks = [
    { source: "gasless", observed: { gasless: input.gasless }, limit: { gaslessEligible: protocolConfig?.gaslessEligible ?? false }, outcome: gaslessCheck(input, protocolConfig, traced.relayConfigured) },
    {
      source: "protocol risk config", limit: configLimits, outcome: protocolConfigCheck(input, protocolConfig),
      observed: { slippageBps: input.facts.slippageBps, pool: input.facts.pool, programIds: input.facts.programIds, amountLamports: input.facts.amountLamports, preBalanceLamports: input.preBalanceLamports, quoteAgeSeconds: input.facts.quoteAgeSeconds, oracleDeviationBps: input.facts.oracleDeviationBps }
    },
    { source: "portfolio risk controls", observed: { portfolio: state.portfolio ?? null, unavailable: state.portfolioUnavailable }, limit: controlLimits, outcome: portfolioControlsCheck(controls, state.portfolio, state.portfolioUnavailable) },
    {
      source: "value limits", observed: traced.value === undefined ? {} : { valueLamports: traced.value.lamports, valueMicroUsd: traced.value.microUsd }, limit: {},
      outcome: traced.valueLimitsDenied.length === 0 ? ALLOW : { decision: "deny" as const, reasons: traced.valueLimitsDenied }
    },
    { source: "approval requested", observed: { requireApproval: input.requireApproval }, limit: {}, outcome: approvalRequestedCheck(input.requireApproval) }
  ]
  return [...checkEntries(checks), ...explainPolicies(traced.policies, toRequest(input), state)]
}

/** The decision with its trace. */
export const withTrace = <D extends PolicyDecision>(decision: D, trace: ReadonlyArray<RuleTrace>): D => ({ ...decision, trace })

