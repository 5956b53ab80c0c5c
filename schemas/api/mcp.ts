/**
 * The tool interface (spec: Tool interface; docs/decisions/mcp.md): the tool list and a call answer the
 * envelope; the MCP Streamable HTTP endpoint `/mcp` answers JSON-RPC, not the envelope.
 */
import * as Schema from "effect/Schema"
import { McpCallBody } from "../mcp.js"
import { endpoint } from "./endpoint.js"

export const McpTool = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  /** JSON Schema of the tool's arguments. */
  inputSchema: Schema.Unknown,
  /** JSON Schema of the tool's structured result (its route's answer, or `{result}` around it). */
  outputSchema: Schema.Unknown,
  annotations: Schema.Struct({ readOnlyHint: Schema.Boolean, destructiveHint: Schema.Boolean, idempotentHint: Schema.Boolean })
}).annotations({ identifier: "McpTool" })

const JSON_RPC = { type: "object", required: ["jsonrpc"], properties: { jsonrpc: { const: "2.0" } } }

export const McpApi = {
  tools: endpoint("mcp", "GET", "/mcp/tools", { summary: "The tools an agent may call", success: Schema.Array(McpTool) }),
  call: endpoint("mcp", "POST", "/mcp/call", {
    summary: "Call a tool with the caller's own key: data is what the tool's route answered",
    body: McpCallBody,
    success: Schema.Unknown
  })
}

/** MCP over Streamable HTTP (stateless): JSON-RPC in and out, so not in the typed client. */
export const McpTransportApi = {
  post: endpoint("mcp", "POST", "/mcp", {
    summary: "MCP Streamable HTTP: one JSON-RPC request (or notification) per POST, answered as JSON",
    raw: [
      { status: 200, description: "The JSON-RPC response", contentTypes: ["application/json"], schema: JSON_RPC },
      { status: 202, description: "A notification or response accepted (no body)", contentTypes: [] },
      {
        status: "default",
        description: "A JSON-RPC error of the transport (406 without the Accept it needs, 400 a malformed message), or the envelope when the gateway refused first",
        contentTypes: ["application/json"],
        schema: { type: "object" }
      }
    ]
  }),
  get: endpoint("mcp", "GET", "/mcp", {
    summary: "No server-initiated stream (stateless): 405",
    raw: [{ status: 405, description: "Method not allowed, as a JSON-RPC error", contentTypes: ["application/json"], schema: JSON_RPC }]
  }),
  delete: endpoint("mcp", "DELETE", "/mcp", {
    summary: "No session to end (stateless): 405",
    raw: [{ status: 405, description: "Method not allowed, as a JSON-RPC error", contentTypes: ["application/json"], schema: JSON_RPC }]
  })
}
