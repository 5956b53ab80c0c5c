/**
 * One tool of the tool interface: its name, what it does, the Effect Schema of its arguments (the one
 * source of truth: the JSON Schema published to clients is derived from it), MCP annotations, and the
 * gateway request it stands for. A tool is nothing but a typed way to call one gateway route.
 */
import { JSONSchema, Schema } from "effect"

export type GatewayMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** The gateway call a tool makes: a path under /api/v1, optional query and JSON body. */
export interface GatewayRequest {
  readonly method: GatewayMethod
  readonly path: string
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly body?: unknown
}

export interface ToolDefinition {
  readonly name: string
  readonly description: string
  /** The arguments; decoding with it is the tool's validation (extra keys are kept for pass-through tools). */
  readonly args: Schema.Schema<any, any, never>
  /** Only reads: an MCP client may call it without asking. */
  readonly readOnly: boolean
  /** Moves value or cannot be undone (signing, transfers, rejecting, policy changes). */
  readonly destructive: boolean
  readonly request: (args: any) => GatewayRequest
}

/** Defines a tool whose `request` sees the decoded arguments of `args`. */
export const tool = <A, I>(definition: {
  readonly name: string
  readonly description: string
  readonly args: Schema.Schema<A, I, never>
  readonly readOnly: boolean
  readonly destructive?: boolean
  readonly request: (args: A) => GatewayRequest
}): ToolDefinition => ({ ...definition, destructive: definition.destructive ?? false })

/** `/api/v1/...` with each path parameter escaped. */
export const apiPath = (strings: TemplateStringsArray, ...params: ReadonlyArray<string | number>) =>
  strings.reduce((path, part, index) => path + part + (index < params.length ? encodeURIComponent(String(params[index])) : ""), "")

/** An object without the given keys (path parameters that must not also travel in the body). */
export const omit = (value: Record<string, unknown>, ...keys: ReadonlyArray<string>) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)))

/** Extra arguments a pass-through tool forwards to the gateway, which validates them. */
export const AnyFields = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/** The JSON Schema of a tool's arguments (always an object schema, as MCP requires). */
export const argsJsonSchema = (definition: ToolDefinition): Record<string, unknown> => {
  const { $schema: _ignored, ...derived } = JSONSchema.make(definition.args) as unknown as Record<string, unknown>
  return derived.type === "object" ? derived : { type: "object", properties: {}, additionalProperties: false }
}
