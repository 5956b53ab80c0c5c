/**
 * protocol_risk: applies only to intents of the rule's protocol, and runs the same checks as the
 * pipeline's protocol risk config (slippage, pools, programs, pool concentration, oracle deviation).
 */
import type { ProtocolRiskRule } from "../../../schemas/policy.js"
import { protocolRiskChecks } from "../protocolRiskChecks.js"
import type { RuleContext } from "../evaluationState.js"
import { ALLOW, type RuleOutcome } from "../outcome.js"

export const evaluateProtocolRisk = (rule: ProtocolRiskRule, ctx: RuleContext): RuleOutcome => {
  const { request, state } = ctx
  if (request.protocol !== rule.protocol) return ALLOW
  const facts = state.transaction
  return protocolRiskChecks(rule, {
    type: request.type,
    slippageBps: request.slippageBps,
    programIds: request.programIds,
    amountLamports: request.amountLamports,
    pool: facts?.pool,
    preBalanceLamports: facts?.preBalanceLamports,
    oracleDeviationBps: facts?.oracleDeviationBps
  }, "protocol_risk")
}
