/**
 * Decoding of everything that comes from outside: body, query, path parameters. A bad input becomes a
 * ValidationError whose message names the field (e.g. `rules[2].maxBps: must be between 0 and 10000`).
 */
import { HttpIncomingMessage, HttpRouter, HttpServerRequest } from "@effect/platform"
import { Effect, Option, ParseResult, Schema } from "effect"
import { ValidationError } from "../../schemas/errors.js"

const formatPath = (path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`),
    ""
  )

/** Turns a ParseError into a ValidationError naming the first offending field (prefixed by `root`). */
export const validationErrorFrom = (error: ParseResult.ParseError, root = ""): ValidationError => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const first = issues[0]
  const field = formatPath([...(root === "" ? [] : [root]), ...(first?.path ?? [])])
  const detail = first?.message ?? "is invalid"
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""})` : ""
  return new ValidationError({ message: field === "" ? `body: ${detail}${more}` : `${field}: ${detail}${more}`, field: field === "" ? undefined : field })
}

export const decodeWith = <A, I, R>(schema: Schema.Schema<A, I, R>, input: unknown, root = "") =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(input).pipe(
    Effect.mapError((error) => validationErrorFrom(error, root))
  )

/** [n26] Request bodies are JSON of at most 1 MiB; every body the spec shows is far smaller. */
export const MAX_BODY_BYTES = 1024 * 1024

/** The JSON body; an empty body counts as `{}`, malformed JSON is a 400 naming the body. */
export const jsonBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  // Refuse by the declared length before reading, so the client gets the answer instead of a reset.
  if (Number(request.headers["content-length"] ?? "0") > MAX_BODY_BYTES) {
    return yield* new ValidationError({ message: "body: larger than 1 MiB of JSON", field: "body" })
  }
  const text = yield* request.text.pipe(
    HttpIncomingMessage.withMaxBodySize(Option.some(MAX_BODY_BYTES)),
    Effect.mapError(() => new ValidationError({ message: "body: could not be read (at most 1 MiB of JSON)", field: "body" }))
  )
  if (text.trim() === "") return {} as unknown
  return yield* Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => new ValidationError({ message: "body: malformed JSON", field: "body" })
  })
})

export const decodeBody = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  Effect.flatMap(jsonBody, (body) => decodeWith(schema, body))

export const decodeQuery = <A, I, R>(schema: Schema.Schema<A, I, R>) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://localhost")
    const query: Record<string, string> = {}
    url.searchParams.forEach((value, key) => {
      query[key] = value
    })
    return yield* decodeWith(schema, query)
  })

/** A path parameter decoded by a schema (e.g. a UUID); the error names the parameter. */
export const pathParam = <A, R>(name: string, schema: Schema.Schema<A, string, R>) =>
  Effect.flatMap(HttpRouter.params, (params) => decodeWith(schema, params[name] ?? "", name))
