/**
 * The agents component's side of the pipeline's ports (pipeline/agentPorts.ts): the agent checks on
 * every spend path (WalletSpend), the budget a retry reserves again, and the record of a portfolio
 * breach. The off-chain intents' port is provided by offChainIntents.ts.
 */
import { Effect, Layer } from "effect"
import { AgentBreachReport, AgentBudgetOnRetry, AgentBudgetRelease, WalletSpendGate } from "../pipeline/agentPorts.js"
import { AgentBreaches } from "./agentBreaches.js"
import { AgentBudgets } from "./budgets.js"
import { WalletSpend } from "./walletSpend.js"

export const WalletSpendGateLive = Layer.effect(WalletSpendGate, Effect.map(WalletSpend, (spend) => ({ create: spend.create })))

export const AgentBudgetOnRetryLive = Layer.effect(AgentBudgetOnRetry, Effect.map(AgentBudgets, (budgets) => ({ reserveAgain: budgets.reserveAgain })))

export const AgentBudgetReleaseLive = Layer.effect(
  AgentBudgetRelease,
  Effect.map(AgentBudgets, (budgets) => ({ release: (txId: string, reason: string) => Effect.asVoid(budgets.releaseForTransaction(txId, reason)) }))
)

export const AgentBreachReportLive = Layer.effect(
  AgentBreachReport,
  Effect.map(AgentBreaches, (breaches) => ({ portfolio: (input: { tenantId: string; agentId: string; reason: string; txId: string }) => breaches.record({ ...input, kind: "portfolio" }) }))
)
