/**
 * Decoding of everything that comes from outside: body, query, path parameters. A bad input becomes a
 * ValidationError whose message names the field (e.g. `rules[2].maxBps: must be between 0 and 10000`).
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { Effect, type Exit, ParseResult, Schema } from "effect"
import type { IncomingMessage } from "node:http"
import { UnsupportedMediaType, ValidationError } from "../../schemas/errors.js"
import { childPath, unsafeInput } from "./inputSafety.js"
import { unknownFieldsMessage } from "../../schemas/strict.js"

const formatPath = (path: ReadonlyArray<PropertyKey>) => path.reduce<string>(childPath, "")

const plural = (count: number) => (count === 1 ? "problem" : "problems")

/**
 * Turns a ParseError into a ValidationError naming the first offending field (prefixed by `root`). Unknown
 * fields come first and are all named (strict input: docs/decisions/input-hardening.md).
 */
export const validationErrorFrom = (error: ParseResult.ParseError, root = ""): ValidationError => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const pathOf = (issue: ParseResult.ArrayFormatterIssue) => formatPath([...(root === "" ? [] : [root]), ...issue.path])
  const unexpected = issues.filter((issue) => issue._tag === "Unexpected")
  if (unexpected.length > 0) {
    const unknown = unexpected.map((issue) => ({ field: pathOf(issue), key: String(issue.path[issue.path.length - 1] ?? ""), message: issue.message }))
    const rest = issues.length - unexpected.length
    const more = rest > 0 ? ` (and ${rest} more ${plural(rest)})` : ""
    return new ValidationError({ message: `${unknownFieldsMessage(unknown)}${more}`, field: unknown[0]!.field })
  }
  const first = issues[0]
  const field = first === undefined ? "" : pathOf(first)
  const detail = first?.message ?? "is invalid"
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more ${plural(issues.length - 1)})` : ""
  return new ValidationError({ message: field === "" ? `body: ${detail}${more}` : `${field}: ${detail}${more}`, field: field === "" ? undefined : field })
}

/**
 * Decodes an outside input strictly: a field the schema does not declare is refused like a wrong one
 * (a schema may still open a subtree with its own `parseOptions`, as a Record does by nature). A NUL,
 * unpaired surrogate or too deep nesting is refused before the schema runs.
 */
export const decodeWith = <A, I, R>(schema: Schema.Schema<A, I, R>, input: unknown, root = "") => {
  const unsafe = unsafeInput(input, root)
  if (unsafe !== undefined) return Effect.fail(unsafe)
  return Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "error" })(input).pipe(
    Effect.mapError((error) => validationErrorFrom(error, root))
  )
}

/** [n26] Request bodies are JSON of at most 1 MiB; every body the spec shows is far smaller. */
export const MAX_BODY_BYTES = 1024 * 1024

const tooLarge = () => new ValidationError({ message: "body: larger than 1 MiB of JSON", field: "body" })

/**
 * Reads at most `limit` bytes. Past the limit it stops keeping bytes but lets the rest flow away
 * (never destroys the socket), so a client streaming a large chunked body reads the 400 instead of
 * a reset; Node's request timeout bounds a body that never ends.
 */
const readAtMost = (source: IncomingMessage, limit: number) =>
  Effect.async<string, ValidationError>((resume) => {
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      cleanup()
      chunks.length = 0
      source.resume()
      resume(Effect.fail(tooLarge()))
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(Buffer.concat(chunks).toString("utf8")))
    }
    const onError = () => {
      cleanup()
      resume(Effect.fail(new ValidationError({ message: "body: could not be read", field: "body" })))
    }
    source.on("data", onData)
    source.once("end", onEnd)
    source.once("error", onError)
    return Effect.sync(cleanup)
  })

/** A body is read once; a handler that asks again (after the first read ended) gets the same outcome. */
const bodies = new WeakMap<IncomingMessage, Exit.Exit<string, ValidationError>>()

const bodyText = (source: IncomingMessage): Effect.Effect<string, ValidationError> =>
  Effect.suspend(() => bodies.get(source) ?? Effect.onExit(readAtMost(source, MAX_BODY_BYTES), (read) => Effect.sync(() => bodies.set(source, read))))

/** `application/json` or any `+json` type, with or without parameters (`; charset=utf-8`). */
const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i

/**
 * A body that is not declared JSON is refused with 415 (a form or text body would otherwise be read as
 * JSON by accident). A request without content-type is read as JSON, as the spec's clients send it.
 */
const mediaTypeRefusal = (contentType: string | undefined): UnsupportedMediaType | undefined =>
  contentType === undefined || contentType.trim() === "" || JSON_MEDIA_TYPE.test(contentType.trim())
    ? undefined
    : new UnsupportedMediaType({ contentType: contentType.split(";")[0]!.trim().slice(0, 100) })

/**
 * The JSON body; an empty body counts as `{}` (whatever its content-type), malformed JSON is a 400 naming the
 * body, a body of another media type a 415.
 */
export const jsonBody = Effect.gen(function* () {
  const request = yield* HttpServerRequest.HttpServerRequest
  // Refuse by the declared length before reading, so the client gets the answer at once.
  if (Number(request.headers["content-length"] ?? "0") > MAX_BODY_BYTES) return yield* tooLarge()
  const text = yield* bodyText(NodeHttpServerRequest.toIncomingMessage(request))
  if (text.trim() === "") return {} as unknown
  const refusal = mediaTypeRefusal(request.headers["content-type"])
  if (refusal !== undefined) return yield* refusal
  const body = yield* Effect.try({
    try: () => JSON.parse(text) as unknown,
    catch: () => new ValidationError({ message: "body: malformed JSON", field: "body" })
  })
  const unsafe = unsafeInput(body)
  return unsafe === undefined ? body : yield* unsafe
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
