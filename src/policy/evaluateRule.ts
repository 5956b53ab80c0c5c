/** Dispatches one decoded rule to its evaluator. */
import type { PolicyRule } from "../../schemas/policy.js"
import type { RuleContext } from "./evaluationState.js"
import { deny, type RuleOutcome } from "./outcome.js"
import { evaluateAddressAllowlist } from "./rules/addressAllowlist.js"
import { evaluateAddressBlocklist } from "./rules/addressBlocklist.js"
import { evaluateEffectBounds } from "./rules/effectBounds.js"
import { evaluateMaxSlippage } from "./rules/maxSlippage.js"
import { evaluatePortfolioRisk } from "./rules/portfolioRisk.js"
import { evaluateProgramAllowlist } from "./rules/programAllowlist.js"
import { evaluateProtocolAllowlist } from "./rules/protocolAllowlist.js"
import { evaluateProtocolRisk } from "./rules/protocolRisk.js"
import { evaluateRateLimit } from "./rules/rateLimit.js"
import { evaluateSpendingLimit } from "./rules/spendingLimit.js"
import { evaluateTimeWindow } from "./rules/timeWindow.js"
import { evaluateTokenAllowlist } from "./rules/tokenAllowlist.js"

export const evaluateRule = (rule: PolicyRule, ctx: RuleContext): RuleOutcome => {
  switch (rule.type) {
    case "spending_limit":
      return evaluateSpendingLimit(rule, ctx)
    case "address_allowlist":
      return evaluateAddressAllowlist(rule, ctx)
    case "address_blocklist":
      return evaluateAddressBlocklist(rule, ctx)
    case "program_allowlist":
      return evaluateProgramAllowlist(rule, ctx)
    case "token_allowlist":
      return evaluateTokenAllowlist(rule, ctx)
    case "protocol_allowlist":
      return evaluateProtocolAllowlist(rule, ctx)
    case "rate_limit":
      return evaluateRateLimit(rule, ctx)
    case "time_window":
      return evaluateTimeWindow(rule, ctx)
    case "max_slippage":
      return evaluateMaxSlippage(rule, ctx)
    case "protocol_risk":
      return evaluateProtocolRisk(rule, ctx)
    case "portfolio_risk":
      return evaluatePortfolioRisk(rule, ctx)
    case "effect_bounds":
      return evaluateEffectBounds(rule, ctx)
    default: {
      // Unreachable for decoded rules; kept so a new type added to the schema fails closed.
      const unknownRule: { readonly type: string } = rule
      return deny(`unknown rule type "${unknownRule.type}"`)
    }
  }
}
