/** Treasury and strategy endpoints (spec: Treasury, Strategy). */
import * as Schema from "effect/Schema"
import { AgentIdParams } from "../agent.js"
import { BacktestBody, BacktestRun, PaperExecuteBody, PaperTrade } from "../strategy.js"
import { AllocateBody, AllocateResult, RebalanceBody, RebalanceResult } from "../treasury.js"
import { endpoint } from "./endpoint.js"

export const TreasuryApi = {
  allocate: endpoint("treasury", "POST", "/api/v1/treasury/allocate", {
    summary: "Allocate lamports from a treasury wallet to agents' wallets",
    body: AllocateBody,
    success: AllocateResult,
    // 200: a repeated idempotencyKey, answered with the allocation it made.
    successStatuses: [201, 200]
  }),
  rebalance: endpoint("treasury", "POST", "/api/v1/treasury/rebalance", {
    summary: "Rebalance agents' wallets toward their targets",
    body: RebalanceBody,
    success: RebalanceResult,
    successStatuses: [201, 200]
  })
}

export const StrategyApi = {
  backtest: endpoint("strategy", "POST", "/api/v1/strategy/backtest", {
    summary: "Backtest an agent's strategy over given steps",
    body: BacktestBody,
    success: BacktestRun,
    successStatuses: [201]
  }),
  paperExecute: endpoint("strategy", "POST", "/api/v1/strategy/paper/execute", {
    summary: "Record a paper trade (no transaction is signed)",
    body: PaperExecuteBody,
    success: PaperTrade,
    successStatuses: [201]
  }),
  paperTrades: endpoint("strategy", "GET", "/api/v1/strategy/paper/:agentId", {
    summary: "An agent's paper trades",
    params: AgentIdParams,
    success: Schema.Array(PaperTrade)
  })
}
