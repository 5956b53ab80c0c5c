/**
 * A tool's output schema (MCP `outputSchema`): the JSON Schema of its `structuredContent`, which is the data its
 * route answers (the route's declared success schema, src/gateway/route.ts encodes every answer through it),
 * or `{ result }` around it when that data is not an object. Further fields are allowed: /api/v1 grows by
 * adding fields ([n29]), and a host must not refuse an answer for one.
 */
import { JSONSchema } from "effect"
import type { Endpoint } from "../../schemas/api/endpoint.js"
import { withoutMarkerIds } from "../../schemas/api/jsonSchemaMarkers.js"

export type JsonSchemaObject = Record<string, unknown>

export interface ToolOutput {
  readonly schema: JsonSchemaObject
  /** Whether the data travels as `{ result: data }` (it is not always an object). */
  readonly wrapped: boolean
}

/** Any JSON in `result`: the generic gateway.request, whose route is only known at call time. */
const ANY_RESULT: ToolOutput = { schema: { type: "object", required: ["result"], properties: { result: {} } }, wrapped: true }

/** Whether every value the schema admits is a JSON object. */
const describesObjects = (schema: JsonSchemaObject, definitions: Readonly<Record<string, unknown>>): boolean => {
  if (typeof schema.$ref === "string") {
    const target = definitions[schema.$ref.replace("#/$defs/", "")]
    return typeof target === "object" && target !== null && describesObjects(target as JsonSchemaObject, definitions)
  }
  if (schema.type === "object") return true
  const members = (schema.anyOf ?? schema.oneOf) as ReadonlyArray<JsonSchemaObject> | undefined
  return members !== undefined && members.length > 0 && members.every((member) => describesObjects(member, definitions))
}

export const toolOutputOf = (endpoint: Endpoint | undefined): ToolOutput => {
  if (endpoint?.success === undefined) return ANY_RESULT
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const data = withoutMarkerIds(
    JSONSchema.fromAST(endpoint.success.ast, { definitions, topLevelReferenceStrategy: "skip", additionalPropertiesStrategy: "allow" })
  ) as JsonSchemaObject
  const defs = Object.keys(definitions).length === 0 ? {} : { $defs: withoutMarkerIds(definitions) }
  // A transaction read answers its record also when the transaction failed (recordOnFailure): the same shape.
  if (describesObjects(data, definitions)) return { schema: { type: "object", ...data, ...defs }, wrapped: false }
  return { schema: { type: "object", required: ["result"], properties: { result: data }, ...defs }, wrapped: true }
}

/** MCP's structured content is an object: the gateway's data, or `{ result }` around it for a wrapped output. */
export const structuredContentOf = (output: ToolOutput, data: unknown): Record<string, unknown> =>
  output.wrapped ? { result: data ?? null } : (data as Record<string, unknown>)
