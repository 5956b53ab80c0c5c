/**
 * Strict input before a route's handler runs (docs/decisions/input-hardening.md): a query parameter the
 * route's contract does not declare, and any field of a body sent to a route that takes none, are refused
 * with a 400 naming them, so an unknown name is the first thing a caller hears of. What a route declares is
 * decoded strictly by its handler (request.ts). Routes that answer in another protocol's format (`raw`: MCP's
 * JSON-RPC, Prometheus, the console's files) read their own input.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect } from "effect"
import type { Endpoint } from "../../schemas/api/endpoint.js"
import { type UnsupportedMediaType, ValidationError } from "../../schemas/errors.js"
import { unknownFieldsMessage } from "../../schemas/strict.js"
import { declaredFields } from "./declaredFields.js"
import { childPath } from "./inputSafety.js"
import { jsonBody } from "./request.js"

const unknownQuery = (url: string, known: ReadonlySet<string>): ValidationError | undefined => {
  const query = url.indexOf("?")
  if (query === -1) return undefined
  const unknown = [...new Set(new URLSearchParams(url.slice(query + 1)).keys())].filter((name) => !known.has(name))
  if (unknown.length === 0) return undefined
  const expected = `expected: ${[...known].map((name) => JSON.stringify(name)).join(" | ")}`
  const message = unknownFieldsMessage(unknown.map((name) => ({ field: childPath("", name), key: name, message: expected })), "query parameter")
  return new ValidationError({ message, field: childPath("", unknown[0]!) })
}

const noBodyFields = (body: unknown): ValidationError | undefined => {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    return new ValidationError({ message: "body: this route takes no body (send none, or {})", field: "body" })
  }
  const keys = Object.keys(body)
  if (keys.length === 0) return undefined
  const message = unknownFieldsMessage(keys.map((key) => ({ field: childPath("", key), key, message: "" })))
  return new ValidationError({ message, field: childPath("", keys[0]!) })
}

const BODY_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"])

/** The check of a route's undeclared input, or undefined when it declares both (or reads its own). */
export const undeclaredInputCheck = (
  endpoint: Endpoint
): Effect.Effect<void, ValidationError | UnsupportedMediaType, HttpServerRequest.HttpServerRequest> | undefined => {
  if (endpoint.raw !== undefined) return undefined
  const knownQuery = declaredFields(endpoint.query)
  const checkBody = endpoint.body === undefined && BODY_METHODS.has(endpoint.method)
  return Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const queryRefusal = unknownQuery(request.url, knownQuery)
    if (queryRefusal !== undefined) return yield* queryRefusal
    if (!checkBody) return
    const bodyRefusal = noBodyFields(yield* jsonBody)
    if (bodyRefusal !== undefined) return yield* bodyRefusal
  })
}
