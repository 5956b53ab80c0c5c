/**
 * One stateless MCP exchange: a server for the caller and a Streamable HTTP transport that answers JSON.
 * Loaded on the first POST to /mcp (streamableHttp.ts), so a service no MCP client asks never loads the
 * MCP SDK (about 25 MiB resident with its schema library).
 */
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import type { GatewayIdentity } from "./gatewayClient.js"
import { createMcpServer } from "./mcpServer.js"

export interface McpAnswer {
  readonly status: number
  readonly headers: Record<string, string>
  readonly text: string
}

export const answerMcpPost = async (identity: GatewayIdentity, headers: Headers, body: unknown): Promise<McpAnswer> => {
  const server = createMcpServer(identity)
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
  await server.connect(transport)
  try {
    const response = await transport.handleRequest(new Request("http://localhost/mcp", { method: "POST", headers, body: JSON.stringify(body) }), { parsedBody: body })
    return { status: response.status, headers: Object.fromEntries(response.headers), text: await response.text() }
  } finally {
    await server.close()
  }
}
