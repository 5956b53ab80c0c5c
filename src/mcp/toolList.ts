/** What a client sees of the tools: name, description, JSON Schema of the arguments, annotations. */
import { TOOLS } from "./catalog.js"
import { argsJsonSchema, type ToolDefinition } from "./toolDefinition.js"

export const describeTool = (definition: ToolDefinition) => ({
  name: definition.name,
  description: definition.description,
  inputSchema: argsJsonSchema(definition),
  annotations: { readOnlyHint: definition.readOnly, destructiveHint: definition.destructive }
})

/** Computed once: the catalog does not change while the process runs. */
export const TOOL_DESCRIPTIONS = TOOLS.map(describeTool)
