/**
 * The tool server as a standalone MCP server over stdio (`npm run mcp`), for desktop MCP clients. It
 * calls the gateway at API_BASE_URL with API_KEY (and TENANT_ID when set). stdout carries the protocol:
 * nothing else may print there.
 */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js"
import { Config, Effect, Option, Redacted } from "effect"
import type { GatewayIdentity } from "./gatewayClient.js"
import { createMcpServer } from "./mcpServer.js"

const IdentityConfig = Config.all({
  baseUrl: Config.url("API_BASE_URL").pipe(Config.withDefault(new URL("http://127.0.0.1:3000"))),
  apiKey: Config.option(Config.redacted("API_KEY")),
  tenantId: Config.option(Config.string("TENANT_ID"))
})

const program = Effect.gen(function* () {
  const config = yield* IdentityConfig
  const identity: GatewayIdentity = {
    baseUrl: config.baseUrl.toString().replace(/\/+$/, ""),
    ...Option.match(config.apiKey, { onNone: () => ({}), onSome: (key) => ({ apiKey: Redacted.value(key) }) }),
    ...Option.match(config.tenantId, { onNone: () => ({}), onSome: (tenantId) => ({ tenantId }) })
  }
  yield* Effect.promise(() => createMcpServer(identity).connect(new StdioServerTransport()))
  console.error(`agent-custody MCP server on stdio, gateway ${identity.baseUrl}`)
})

Effect.runPromise(program).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error))
  process.exit(1)
})
