/** Every tool of the tool interface, by name (the spec's list plus the gateway reads it leaves out). */
import type { ToolDefinition } from "./toolDefinition.js"
import { agentTools } from "./tools/agentTools.js"
import { auditTools } from "./tools/auditTools.js"
import { gatewayRequestTool } from "./tools/gatewayRequestTool.js"
import { policyTools } from "./tools/policyTools.js"
import { protocolTools } from "./tools/protocolTools.js"
import { riskTools } from "./tools/riskTools.js"
import { freezeTools } from "./tools/freezeTools.js"
import { keyTools } from "./tools/keyTools.js"
import { strategyTools } from "./tools/strategyTools.js"
import { transactionTools } from "./tools/transactionTools.js"
import { walletTools } from "./tools/walletTools.js"

export const TOOLS: ReadonlyArray<ToolDefinition> = [
  ...walletTools,
  ...transactionTools,
  ...policyTools,
  ...agentTools,
  ...protocolTools,
  ...riskTools,
  ...freezeTools,
  ...strategyTools,
  ...auditTools,
  ...keyTools,
  gatewayRequestTool
]

/** By the spec's dotted name and by the MCP name: `/mcp/call` and MCP `tools/call` accept either. */
export const TOOLS_BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(
  TOOLS.flatMap((definition) => [[definition.name, definition] as const, [definition.mcpName, definition] as const])
)
