/** portfolio_risk: drawdown and daily loss over limit deny; token or protocol exposure over limit needs approval. */
import type { PortfolioRiskRule } from "../../../schemas/policy.js"
import { portfolioRiskChecks } from "../portfolioRiskChecks.js"
import type { RuleContext } from "../evaluationState.js"
import type { RuleOutcome } from "../outcome.js"

export const evaluatePortfolioRisk = (rule: PortfolioRiskRule, ctx: RuleContext): RuleOutcome =>
  portfolioRiskChecks(rule, ctx.state.portfolio, "portfolio_risk", ctx.state.portfolioUnavailable)
