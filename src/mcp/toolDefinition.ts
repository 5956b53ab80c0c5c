/**
 * One tool of the tool interface: its name, what it does, the Effect Schema of its arguments (the one
 * source of truth: the JSON Schema published to clients is derived from it), MCP annotations, the gateway
 * route it calls (whose declared answer is the tool's output schema) and the request it makes. A tool is
 * nothing but a typed way to call one gateway route.
 */
import { JSONSchema, Schema } from "effect"
import type { Endpoint } from "../../schemas/api/endpoint.js"
import { withoutMarkerIds } from "../../schemas/api/jsonSchemaMarkers.js"

export type GatewayMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE"

/** The gateway call a tool makes: a path under /api/v1, optional query and JSON body. */
export interface GatewayRequest {
  readonly method: GatewayMethod
  readonly path: string
  readonly query?: Readonly<Record<string, string | number | boolean | undefined>>
  readonly body?: unknown
}

/**
 * The name MCP hosts accept (`^[a-zA-Z0-9_-]{1,64}$`: Claude Desktop, Cursor and the OpenAI Agents SDK withhold
 * every tool when one name fails): the spec's dotted name with `_` for `.` (`wallet.create` -> `wallet_create`).
 */
export const mcpToolName = (name: string) => name.replaceAll(".", "_")

export interface ToolDefinition {
  /** The spec's name (`wallet.create`): `/mcp/tools` and `/mcp/call`. */
  readonly name: string
  /** The name on the MCP protocol (`wallet_create`); `/mcp/call` accepts it too. */
  readonly mcpName: string
  readonly description: string
  /** The arguments; decoding with it is the tool's validation (extra keys are kept for pass-through tools). */
  readonly args: Schema.Schema<any, any, never>
  /** The route it calls; its declared answer is the tool's output. Undefined for the generic gateway.request. */
  readonly endpoint: Endpoint | undefined
  /** Only reads: an MCP client may call it without asking. */
  readonly readOnly: boolean
  /** Moves value or cannot be undone (signing, transfers, rejecting, policy changes). */
  readonly destructive: boolean
  /** Calling it again with the same arguments has no further effect (every read; a PUT of settings). */
  readonly idempotent: boolean
  readonly request: (args: any) => GatewayRequest
}

/** Defines a tool whose `request` sees the decoded arguments of `args`. */
export const tool = <A, I>(definition: {
  readonly name: string
  readonly description: string
  readonly args: Schema.Schema<A, I, never>
  readonly endpoint: Endpoint | undefined
  readonly readOnly: boolean
  readonly destructive?: boolean
  /** Defaults to readOnly. */
  readonly idempotent?: boolean
  readonly request: (args: A) => GatewayRequest
}): ToolDefinition => ({
  ...definition,
  mcpName: mcpToolName(definition.name),
  destructive: definition.destructive ?? false,
  idempotent: definition.idempotent ?? definition.readOnly
})

/** `/api/v1/...` with each path parameter escaped. */
export const apiPath = (strings: TemplateStringsArray, ...params: ReadonlyArray<string | number>) =>
  strings.reduce((path, part, index) => path + part + (index < params.length ? encodeURIComponent(String(params[index])) : ""), "")

/** An object without the given keys (path parameters that must not also travel in the body). */
export const omit = (value: Record<string, unknown>, ...keys: ReadonlyArray<string>) =>
  Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)))

/** Extra arguments a pass-through tool forwards to the gateway, which validates them. */
export const AnyFields = Schema.Record({ key: Schema.String, value: Schema.Unknown })

/**
 * The JSON Schema of a tool's arguments: an object schema, as MCP requires, inlined at the top even when the
 * arguments are a named schema (a top-level `$ref` would leave hosts without the properties).
 */
export const argsJsonSchema = (definition: ToolDefinition): Record<string, unknown> => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const derived = withoutMarkerIds(JSONSchema.fromAST(definition.args.ast, { definitions, topLevelReferenceStrategy: "skip" })) as Record<string, unknown>
  const defs = Object.keys(definitions).length === 0 ? {} : { $defs: withoutMarkerIds(definitions) }
  return derived.type === "object" ? { ...derived, ...defs } : { type: "object", properties: {}, additionalProperties: false }
}
