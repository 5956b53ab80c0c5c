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
import { TOOLS_BY_NAME } from "./catalog.js"
import { structuredContentOf } from "./outputSchema.js"
import { runTool } from "./runTool.js"
import { mcpToolDescriptions, toolOutputs } from "./toolList.js"

export const SERVER_INFO = { name: "agent-custody", version: "0.1.0" } as const

/**
 * A tool's answer: the data as text and as structured content matching the tool's outputSchema. A failed
 * call is `isError` with the message (errorCode, stage and traceId in it) and no structured content: MCP
 * clients check structured content against the output schema, which describes a success.
 */
export const callToolResult = (identity: GatewayIdentity, name: string, args: unknown): Promise<CallToolResult> =>
  Effect.runPromise(
    runTool(identity, name, args).pipe(
      Effect.map((data): CallToolResult => {
        const output = toolOutputs().get(TOOLS_BY_NAME.get(name)!.name)!
        return { content: [{ type: "text", text: JSON.stringify(data ?? null) }], structuredContent: structuredContentOf(output, data) }
      }),
      Effect.catchTag("ToolError", (error) =>
        error.httpStatus === 404
          ? Effect.die(new McpError(ErrorCode.InvalidParams, error.message))
          : Effect.succeed<CallToolResult>({ isError: true, content: [{ type: "text", text: error.message }] })
      )
    )
  )

export const createMcpServer = (identity: GatewayIdentity) => {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: {} },
    instructions:
      "Custody and execution on Solana. Create a wallet (wallet_create), send intents (tx_create, which waits for the outcome), read tx_get until confirmed or failed, read tx_proof. Every call runs with this connection's API key, its scopes, tenant and the wallet's policies."
  })
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: mcpToolDescriptions().map((t) => ({ ...t })) }))
  server.setRequestHandler(CallToolRequestSchema, (request) => callToolResult(identity, request.params.name, request.params.arguments ?? {}))
  return server
}
