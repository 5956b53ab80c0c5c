/**
 * A Model Context Protocol server (the official SDK) over the same tools: tools/list publishes each
 * tool's JSON Schema (derived from its Effect Schema) and annotations; tools/call runs the tool against
 * the gateway with the given identity and answers structured content. The transport is the caller's:
 * stdio (main.ts) or Streamable HTTP on the gateway (streamableHttp.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { Effect } from "effect"
import type { GatewayIdentity } from "./gatewayClient.js"
import { runTool } from "./runTool.js"
import { TOOL_DESCRIPTIONS } from "./toolList.js"

export const SERVER_INFO = { name: "agent-custody", version: "0.1.0" } as const

/** MCP's structured content is an object: the gateway's data when it is one, else `{ result }`. */
const structured = (data: unknown): Record<string, unknown> =>
  typeof data === "object" && data !== null && !Array.isArray(data) ? (data as Record<string, unknown>) : { result: data }

export const callToolResult = (identity: GatewayIdentity, name: string, args: unknown): Promise<CallToolResult> =>
  Effect.runPromise(
    runTool(identity, name, args).pipe(
      Effect.map((data): CallToolResult => ({ content: [{ type: "text", text: JSON.stringify(data ?? null) }], structuredContent: structured(data) })),
      Effect.catchTag("ToolError", (error) =>
        error.httpStatus === 404
          ? Effect.die(new McpError(ErrorCode.InvalidParams, error.message))
          : Effect.succeed<CallToolResult>({
              isError: true,
              content: [{ type: "text", text: error.message }],
              structuredContent: { error: error.message, errorCode: error.errorCode ?? null, stage: error.stage ?? null, traceId: error.traceId ?? null }
            })
      )
    )
  )

export const createMcpServer = (identity: GatewayIdentity) => {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "Custody and execution on Solana. Create a wallet (wallet.create), send intents (tx.create), poll tx.get until confirmed or failed, read tx.proof. Every call runs with this connection's API key, its scopes, tenant and the wallet's policies."
  })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_DESCRIPTIONS.map((t) => ({ ...t })) }))
  server.setRequestHandler(CallToolRequestSchema, (request) => callToolResult(identity, request.params.name, request.params.arguments ?? {}))
  return server
}
