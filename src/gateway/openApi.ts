/**
 * The OpenAPI 3.1 document of the gateway, generated from the routes' declarations (schemas/api/): the
 * JSON Schemas come from the Effect Schemas (JSONSchema.fromAST), every response is wrapped in the
 * spec's envelope, the failure envelopes are listed per status, and each operation names the scope its
 * key needs (docs/decisions/api-contract.md). A route without a declaration appears with any JSON as data;
 * a declared answer outside the envelope (`raw`) appears with its own media types.
 */
import { JSONSchema, Schema } from "effect"
import type { Endpoint } from "../../schemas/api/endpoint.js"
import { withoutMarkerIds } from "../../schemas/api/jsonSchemaMarkers.js"
import { ErrorCodeSchema, FailedAtSchema } from "../../schemas/envelope.js"
import type { Route } from "./route.js"
import { scopeForPath } from "./routeScopes.js"

type JsonSchema = Record<string, unknown>

const COMPONENTS = "#/components/schemas/"

/** Statuses a failure envelope answers with (spec: Errors; 401/403/429 only where a key is needed). */
const FAILURE_STATUSES: ReadonlyArray<readonly [status: number, description: string, needsKey: boolean]> = [
  [400, "Invalid input: the message names the field (VALIDATION_ERROR)", false],
  [401, "Missing or unknown API key", true],
  [403, "The key lacks the scope or access, or policy denied (POLICY_VIOLATION)", true],
  [404, "No such resource or route", false],
  [409, "The resource is in a state that does not allow this", false],
  [415, "The body is not JSON: send content-type application/json (VALIDATION_ERROR)", false],
  [429, "Rate limited: see retry-after and x-ratelimit-* headers", true],
  [500, "Internal or pipeline error (PIPELINE_ERROR); the traceId finds it in the log", false],
  [503, "The database is unreachable for now (PIPELINE_ERROR); retry after retry-after seconds", false]
]


const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, "{$1}")
const pathNames = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]!)

/** Builds the document; `definitions` collects the named schemas (identifier annotations) as components. */
export const openApiDocument = (routes: ReadonlyArray<Route<unknown>>, info: { readonly title: string; readonly version: string }) => {
  const definitions: Record<string, JSONSchema.JsonSchema7> = {}
  const jsonSchema = (schema: Schema.Schema.Any, additionalProperties: "strict" | "allow"): JsonSchema =>
    withoutMarkerIds(
      JSONSchema.fromAST(schema.ast, {
        definitions,
        definitionPath: COMPONENTS,
        target: "openApi3.1",
        topLevelReferenceStrategy: "keep",
        additionalPropertiesStrategy: additionalProperties
      })
    ) as JsonSchema
  /** A parameter list needs the properties themselves, also when the schema is a named component. */
  const inlined = (schema: JsonSchema): JsonSchema =>
    typeof schema.$ref === "string" && schema.$ref.startsWith(COMPONENTS)
      ? (definitions[schema.$ref.slice(COMPONENTS.length)] as unknown as JsonSchema)
      : schema
  // Named, so they land in the components the envelopes refer to.
  jsonSchema(ErrorCodeSchema.annotations({ identifier: "ErrorCode" }), "strict")
  jsonSchema(FailedAtSchema.annotations({ identifier: "Stage" }), "strict")
  const ref = (name: string) => ({ $ref: COMPONENTS + name })

  /** The envelope around `data`; `outcome` says which statuses the envelope may carry. */
  const envelope = (data: JsonSchema, outcome: "success" | "failure" | "either"): JsonSchema => ({
    type: "object",
    required: ["status", "errorCode", "failedAt", "stage", "traceId", "data"],
    properties: {
      status: outcome === "either" ? { enum: ["success", "failure"] } : { const: outcome },
      errorCode: outcome === "success" ? { type: "null" } : outcome === "failure" ? ref("ErrorCode") : { anyOf: [ref("ErrorCode"), { type: "null" }] },
      failedAt: outcome === "success" ? { type: "null" } : { anyOf: [ref("Stage"), { type: "null" }] },
      stage: { type: "string" },
      traceId: { type: "string", format: "uuid" },
      data,
      ...(outcome === "success" ? {} : { error: { type: "string" }, errorMessage: { type: "string" } })
    },
    additionalProperties: false
  })
  const json = (schema: JsonSchema) => ({ "application/json": { schema } })

  const operation = (route: Route<unknown>) => {
    const endpoint: Endpoint | undefined = route.endpoint
    const scope = scopeForPath(route.path)
    const needsKey = scope !== undefined
    const parameters: Array<JsonSchema> = []
    const paramSchemas = endpoint?.params === undefined ? undefined : inlined(jsonSchema(endpoint.params, "allow"))
    for (const name of pathNames(route.path)) {
      const declared = (paramSchemas?.properties as Record<string, JsonSchema> | undefined)?.[name]
      parameters.push({ name, in: "path", required: true, schema: declared ?? { type: "string" } })
    }
    if (endpoint?.query !== undefined) {
      const query = inlined(jsonSchema(endpoint.query, "allow"))
      const required = new Set((query.required as Array<string> | undefined) ?? [])
      for (const [name, schema] of Object.entries((query.properties as Record<string, JsonSchema> | undefined) ?? {})) {
        parameters.push({ name, in: "query", required: required.has(name), schema })
      }
    }
    const data: JsonSchema =
      endpoint?.success === undefined ? { description: "Not declared yet: any JSON" } : jsonSchema(endpoint.success, "strict")
    // An undeclared route may answer like POST /transactions (a failed record at 200): either envelope.
    const successOutcome = endpoint === undefined || endpoint.recordOnFailure ? "either" : "success"
    const responses: Record<string, unknown> = {}
    if (endpoint?.raw !== undefined) {
      // Not the envelope: the answer's own media types (Prometheus text, JSON-RPC, the console's files).
      for (const answer of endpoint.raw) {
        const schema = answer.schema ?? { type: "string" }
        responses[String(answer.status)] = {
          description: answer.description,
          ...(answer.contentTypes.length === 0 ? {} : { content: Object.fromEntries(answer.contentTypes.map((type) => [type, { schema }])) })
        }
      }
    } else {
      for (const status of endpoint?.successStatuses ?? [route.method === "POST" ? 201 : 200, 200]) {
        responses[String(status)] = { description: status === 202 ? "Accepted, waiting" : "Success", content: json(envelope(data, successOutcome)) }
      }
    }
    for (const [status, description, keyOnly] of FAILURE_STATUSES) {
      if (keyOnly && !needsKey) continue
      if (status === 415 && route.method === "GET") continue
      const failureData = endpoint?.recordOnFailure === true ? { anyOf: [data, { type: "null" }] } : {}
      responses[String(status)] ??= { description, content: json(envelope(failureData, "failure")) }
    }
    // An undeclared route may answer outside the envelope: anything goes. A raw answer may name its own default.
    responses.default ??=
      endpoint === undefined ? { description: "Not declared yet" } : { description: "Any other failure", content: json(envelope({}, "failure")) }
    return {
      operationId: operationId(route.method, route.path),
      summary: endpoint?.summary ?? `${route.method} ${route.path}`,
      tags: [endpoint?.group ?? "undeclared"],
      security: needsKey ? [{ apiKey: [scope] }] : [],
      "x-scope": scope ?? null,
      "x-access": route.access,
      ...(parameters.length === 0 ? {} : { parameters }),
      ...(endpoint?.body === undefined || route.method === "GET"
        ? {}
        : { requestBody: { required: false, content: json(jsonSchema(endpoint.body, "allow")) } }),
      responses
    }
  }

  const paths: Record<string, Record<string, unknown>> = {}
  for (const route of routes) {
    if (route.method === "HEAD" || route.method === "OPTIONS") continue
    const key = openApiPath(route.path)
    paths[key] ??= {}
    paths[key]![route.method.toLowerCase()] = operation(route)
  }
  return {
    openapi: "3.1.0",
    info: {
      ...info,
      description:
        "Every response is the envelope of the spec; `data` holds the resource. A few operations answer their success in another media type " +
        "(Prometheus text at /metrics, MCP's JSON-RPC at /mcp, the console's files); their failures before the handler are still the envelope."
    },
    jsonSchemaDialect: "https://spec.openapis.org/oas/3.1/dialect/base",
    tags: [...new Set(routes.map((route) => route.endpoint?.group ?? "undeclared"))].map((name) => ({ name })),
    paths,
    components: {
      schemas: withoutMarkerIds(definitions),
      securitySchemes: { apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "Scopes are listed per operation (x-scope)" } }
    }
  }
}

/** A unique, stable operationId: method and path (`get_api_v1_wallets_walletId`). */
const operationId = (method: string, path: string) => `${method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+/g, "_")}`
