/** Strategy and treasury tools (spec: Tool interface, Strategy and treasury). */
import { Schema } from "effect"
import { StrategyApi, TreasuryApi } from "../../../schemas/api/treasury.js"
import { AgentId, Amount, IdempotencyKeyArg, Intent, JsonObject, ProtocolName, TransactionType, WalletId } from "../args.js"
import { AnyFields, apiPath, tool } from "../toolDefinition.js"

export const strategyTools = [
  tool({
    name: "strategy.backtest",
    description: "Backtest a strategy: steps of {type, protocol, intent, timestamp, simulatedPnlLamports?}; minimumPassRate 0-1.",
    endpoint: StrategyApi.backtest,
    args: Schema.Struct({ walletId: WalletId, name: Schema.String, steps: Schema.Array(JsonObject) }, AnyFields),
    // Records the run (a passing one may be what lets an autonomous agent start): not read-only.
    readOnly: false,
    request: (args) => ({ method: "POST", path: "/api/v1/strategy/backtest", body: args })
  }),
  tool({
    name: "strategy.paper_execute",
    description: "Run an intent as a paper trade (no on-chain submission).",
    endpoint: StrategyApi.paperExecute,
    args: Schema.Struct({ agentId: AgentId, walletId: WalletId, type: TransactionType, protocol: ProtocolName, intent: Schema.optional(Intent) }),
    readOnly: false,
    request: (args) => ({ method: "POST", path: "/api/v1/strategy/paper/execute", body: args })
  }),
  tool({
    name: "strategy.paper_list",
    description: "An agent's paper trades.",
    endpoint: StrategyApi.paperTrades,
    args: Schema.Struct({ agentId: AgentId }),
    readOnly: true,
    request: ({ agentId }) => ({ method: "GET", path: apiPath`/api/v1/strategy/paper/${agentId}` })
  }),
  tool({
    name: "treasury.allocate",
    description: "Allocate budget lamports to an agent (from sourceAgentId when given, else new budget). Operator act. Send an idempotencyKey: a repeat then answers the first allocation instead of allocating again.",
    endpoint: TreasuryApi.allocate,
    args: Schema.Struct({ targetAgentId: AgentId, lamports: Amount, idempotencyKey: Schema.optional(IdempotencyKeyArg) }, AnyFields),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: "/api/v1/treasury/allocate", body: args })
  }),
  tool({
    name: "treasury.rebalance",
    description: "Move budget lamports from one agent to another (bookkeeping only). Operator act. Send an idempotencyKey: a repeat then answers the first move instead of moving again.",
    endpoint: TreasuryApi.rebalance,
    args: Schema.Struct({ sourceAgentId: AgentId, targetAgentId: AgentId, lamports: Amount, idempotencyKey: Schema.optional(IdempotencyKeyArg) }, AnyFields),
    readOnly: false,
    destructive: true,
    request: (args) => ({ method: "POST", path: "/api/v1/treasury/rebalance", body: args })
  })
]
