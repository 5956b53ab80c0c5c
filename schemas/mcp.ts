/** Tool interface bodies (spec: Tool interface). */
import * as Schema from "effect/Schema"

export const McpCallBody = Schema.Struct({
  tool: Schema.String.pipe(
    Schema.pattern(/^[a-z][a-z0-9_]*(\.[a-z0-9_]+)*$/, { message: () => "must be a tool name such as wallet.create" }),
    Schema.maxLength(128, { message: () => "must be at most 128 characters" })
  ),
  args: Schema.optionalWith(
    Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
      message: () => ({ message: "must be a JSON object", override: true })
    }),
    { exact: true, default: () => ({}) }
  )
})
export type McpCallBody = typeof McpCallBody.Type

export const ToolDescription = Schema.Struct({
  name: Schema.String,
  description: Schema.String,
  /** JSON Schema of the tool's arguments, when the server publishes it. */
  inputSchema: Schema.optional(Schema.Unknown)
})
export type ToolDescription = typeof ToolDescription.Type
