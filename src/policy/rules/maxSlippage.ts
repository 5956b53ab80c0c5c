/**
 * max_slippage: deny when the intent's slippageBps exceeds maxBps. A swap-like intent without a
 * slippage cannot be checked and is denied; other intents carry no slippage and pass.
 */
import type { MaxSlippageRule } from "../../../schemas/policy.js"
import { isSwapLike, type RuleContext } from "../evaluationState.js"
import { ALLOW, deny, type RuleOutcome } from "../outcome.js"

export const evaluateMaxSlippage = (rule: MaxSlippageRule, ctx: RuleContext): RuleOutcome => {
  const slippage = ctx.request.slippageBps
  if (slippage === undefined) {
    return isSwapLike(ctx.request.type) ? deny("max_slippage: slippageBps is required for a swap") : ALLOW
  }
  if (slippage <= rule.maxBps) return ALLOW
  return deny(`max_slippage: slippage ${slippage} bps exceeds maxBps ${rule.maxBps}`)
}
