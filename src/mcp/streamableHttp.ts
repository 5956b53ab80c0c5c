/**
 * MCP over Streamable HTTP on the gateway, at `/mcp` (stateless: every POST gets its own server and
 * transport; answers are JSON, no session, no server-sent stream). The key is `x-api-key` or
 * `Authorization: Bearer` (checked by the gateway before this runs), and the tools act with it.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Effect } from "effect"
import { McpTransportApi } from "../../schemas/api/mcp.js"
import { jsonBody } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import { callerIdentity } from "./http.js"

const SKIPPED_HEADERS = new Set(["host", "content-length", "connection", "transfer-encoding", "keep-alive"])

const handlePost = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const body = yield* jsonBody
  const identity = yield* callerIdentity
  const headers = new Headers()
  for (const [name, value] of Object.entries(request.headers)) if (!SKIPPED_HEADERS.has(name) && value !== undefined) headers.set(name, value)
  // the MCP SDK loads on the first exchange (mcpAnswer.ts)
  const answer = yield* Effect.promise(() => import("./mcpAnswer.js").then(({ answerMcpPost }) => answerMcpPost(identity, headers, body)))
  return HttpServerResponse.text(answer.text, { status: answer.status, headers: answer.headers, contentType: answer.headers["content-type"] ?? "application/json" })
})

/** No session and no server-initiated stream: GET and DELETE are 405, as the transport spec allows. */
const methodNotAllowed = Effect.succeed(
  HttpServerResponse.text(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: this server is stateless; POST JSON-RPC to /mcp" }, id: null }), {
    status: 405,
    headers: { allow: "POST" },
    contentType: "application/json"
  })
)

export const streamableHttpRoutes = [
  route(McpTransportApi.post, handlePost),
  route(McpTransportApi.get, methodNotAllowed),
  route(McpTransportApi.delete, methodNotAllowed)
]
