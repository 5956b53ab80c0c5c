/**
 * What a client sees of the tools: name, description, JSON Schema of the arguments and of the output,
 * annotations. The spec's interface (`GET /mcp/tools`) shows the spec's dotted names; the MCP protocol shows
 * the names hosts accept (`wallet_create`, toolDefinition.ts).
 */
import { TOOLS } from "./catalog.js"
import { toolOutputOf, type ToolOutput } from "./outputSchema.js"
import { argsJsonSchema, type ToolDefinition } from "./toolDefinition.js"

/** Honest hints: MCP reads destructive and idempotent only for a tool that is not read-only. */
const annotationsOf = (definition: ToolDefinition) => ({
  readOnlyHint: definition.readOnly,
  destructiveHint: definition.destructive,
  idempotentHint: definition.idempotent
})

/** Each tool's output, computed once: the catalog does not change while the process runs. */
export const TOOL_OUTPUTS: ReadonlyMap<string, ToolOutput> = new Map(TOOLS.map((definition) => [definition.name, toolOutputOf(definition.endpoint)]))

export const describeTool = (definition: ToolDefinition, name: string) => ({
  name,
  description: definition.description,
  inputSchema: argsJsonSchema(definition),
  outputSchema: TOOL_OUTPUTS.get(definition.name)!.schema,
  annotations: annotationsOf(definition)
})

/** `GET /mcp/tools`: the spec's names. */
export const TOOL_DESCRIPTIONS = TOOLS.map((definition) => describeTool(definition, definition.name))

/** MCP `tools/list`: the names MCP hosts accept. */
export const MCP_TOOL_DESCRIPTIONS = TOOLS.map((definition) => describeTool(definition, definition.mcpName))
