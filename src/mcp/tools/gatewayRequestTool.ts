/** The generic tool (spec: Tool interface, Generic): any /api/v1 route, under the caller's own auth. */
import { Schema } from "effect"
import { JsonObject } from "../args.js"
import { tool } from "../toolDefinition.js"

/** The spec's pattern: no `.` (so no `..`), nothing outside /api/v1. */
export const GATEWAY_PATH_PATTERN = /^\/api\/v1\/[a-zA-Z0-9/_:-]*$/

export const gatewayRequestTool = tool({
  name: "gateway.request",
  description: "Call any /api/v1 route of the gateway with this key's own scopes and tenant: path, method (GET, POST, PUT, PATCH, DELETE), query, body.",
  args: Schema.Struct({
    path: Schema.String.pipe(Schema.pattern(GATEWAY_PATH_PATTERN, { message: () => "must match ^/api/v1/[a-zA-Z0-9/_:-]*$" })),
    method: Schema.Literal("GET", "POST", "PUT", "PATCH", "DELETE").annotations({ message: () => "must be one of GET, POST, PUT, PATCH, DELETE" }),
    query: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean) })),
    body: Schema.optional(JsonObject)
  }),
  endpoint: undefined,
  readOnly: false,
  destructive: true,
  request: ({ path, method, query, body }) => ({
    method,
    path,
    ...(query === undefined ? {} : { query }),
    ...(body === undefined ? {} : { body })
  })
})
