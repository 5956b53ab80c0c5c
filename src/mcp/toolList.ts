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

/**
 * Computed once, on first use: the catalog does not change while the process runs, and deriving its JSON
 * Schemas (about half a second) is not paid by a service start that no MCP client asks.
 */
const once = <A>(make: () => A): (() => A) => {
  let made: { readonly value: A } | undefined
  return () => (made ??= { value: make() }).value
}

/** Each tool's output schema, by the tool's spec name. */
export const toolOutputs: () => ReadonlyMap<string, ToolOutput> = once(() => new Map(TOOLS.map((definition) => [definition.name, toolOutputOf(definition.endpoint)])))

export const describeTool = (definition: ToolDefinition, name: string) => ({
  name,
  description: definition.description,
  inputSchema: argsJsonSchema(definition),
  outputSchema: toolOutputs().get(definition.name)!.schema,
  annotations: annotationsOf(definition)
})

/** `GET /mcp/tools`: the spec's names. */
export const toolDescriptions = once(() => TOOLS.map((definition) => describeTool(definition, definition.name)))

/** MCP `tools/list`: the names MCP hosts accept. */
export const mcpToolDescriptions = once(() => TOOLS.map((definition) => describeTool(definition, definition.mcpName)))
