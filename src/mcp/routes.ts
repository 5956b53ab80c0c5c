/** The gateway's /mcp routes: the spec's tool interface and the MCP Streamable HTTP endpoint. */
import { mcpToolRoutes } from "./http.js"
import { streamableHttpRoutes } from "./streamableHttp.js"

export const mcpRoutes = [...mcpToolRoutes, ...streamableHttpRoutes]
