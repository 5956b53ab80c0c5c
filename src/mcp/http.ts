/**
 * The tool interface on the gateway (spec: Tool interface): GET /mcp/tools and POST /mcp/call. A call
 * goes back into the gateway over HTTP with the CALLER's own x-api-key and x-tenant-id, so it gets
 * exactly the scopes, tenant and policy of that key (docs/decisions/mcp.md).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import { McpApi } from "../../schemas/api/mcp.js"
import { McpCallBody } from "../../schemas/mcp.js"
import { ok, type Reply } from "../gateway/envelope.js"
import { innerCallToken } from "../gateway/innerCall.js"
import { decodeBody } from "../gateway/request.js"
import { route } from "../gateway/route.js"
import type { GatewayIdentity } from "./gatewayClient.js"
import { presentedKey, presentedTenant } from "../gateway/presentedKey.js"
import { runTool, type ToolError } from "./runTool.js"
import { toolDescriptions } from "./toolList.js"

/** The caller's identity, aimed at this gateway's own listening address; its calls were counted here. */
export const callerIdentity = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  const server = yield* HttpServer.HttpServer
  const port = server.address._tag === "TcpAddress" ? server.address.port : 0
  const apiKey = presentedKey(request.headers)
  const tenantId = presentedTenant(request.headers)
  const identity: GatewayIdentity = {
    baseUrl: `http://127.0.0.1:${port}`,
    innerCallToken,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(tenantId === undefined ? {} : { tenantId })
  }
  return identity
})

/** Tool errors leave as the envelope, whose `error` string is the spec's `{error}` body. */
export const toolErrorReply = (error: ToolError): Reply => ({
  httpStatus: error.httpStatus,
  data: error.traceId === undefined ? null : { errorCode: error.errorCode ?? null, stage: error.stage ?? null, traceId: error.traceId },
  failure:
    error.httpStatus === 500
      ? { errorCode: error.errorCode === "VALIDATION_ERROR" || error.errorCode === "POLICY_VIOLATION" || error.errorCode === "CONFIRMATION_FAILED" ? error.errorCode : "PIPELINE_ERROR", failedAt: "gateway", stage: error.stage ?? "gateway", message: error.message }
      : { errorCode: "VALIDATION_ERROR", failedAt: "validation", message: error.message }
})

export const mcpToolRoutes = [
  route(McpApi.tools, Effect.sync(() => ok(toolDescriptions()))),
  route(
    McpApi.call,
    Effect.gen(function* () {
      const body = yield* decodeBody(McpCallBody)
      const identity = yield* callerIdentity
      return yield* runTool(identity, body.tool, body.args).pipe(
        Effect.map((data) => ok(data)),
        Effect.catchTag("ToolError", (error) => Effect.succeed(toolErrorReply(error)))
      )
    })
  )
]
