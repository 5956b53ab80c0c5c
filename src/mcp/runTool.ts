/**
 * Runs one tool call: find the tool, decode its arguments with its schema, make its gateway call with
 * the given identity, and turn the answer into the tool's result or a ToolError (spec: Errors, tool
 * interface errors: unknown tool 404, bad argument 400 naming it, failing gateway call 500 whose
 * message carries the errorCode, stage and traceId).
 */
import { Data, Effect, ParseResult, Schema } from "effect"
import { TOOLS_BY_NAME } from "./catalog.js"
import { callGateway, type GatewayIdentity } from "./gatewayClient.js"

export class ToolError extends Data.TaggedError("ToolError")<{
  readonly httpStatus: 400 | 404 | 500
  readonly message: string
  /** The failing gateway call's envelope fields, when the gateway answered. */
  readonly errorCode?: string | null
  readonly stage?: string
  readonly traceId?: string
}> {}

const fieldPath = (path: ReadonlyArray<PropertyKey>) =>
  path.reduce<string>((acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`), "")

const argumentError = (error: ParseResult.ParseError) => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
  const first = issues[0]
  const field = fieldPath(first?.path ?? [])
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : ""
  return new ToolError({ httpStatus: 400, message: `${field === "" ? "args" : `args.${field}`}: ${first?.message ?? "is invalid"}${more}` })
}

/** The gateway's data for a successful call (2xx; a failed transaction read is data too). */
export const runTool = Effect.fn("Mcp.runTool")(function* (identity: GatewayIdentity, name: string, args: unknown) {
  const definition = TOOLS_BY_NAME.get(name)
  if (definition === undefined) return yield* new ToolError({ httpStatus: 404, message: `unknown tool: ${name}` })
  const decoded = yield* Schema.decodeUnknown(definition.args, { errors: "all", onExcessProperty: "error" })(args ?? {}).pipe(
    Effect.mapError(argumentError)
  )
  const answer = yield* callGateway(identity, definition.request(decoded)).pipe(
    Effect.mapError((error) => new ToolError({ httpStatus: 500, message: `${name}: ${error.message}` }))
  )
  const { envelope } = answer
  if (answer.httpStatus >= 400) {
    return yield* new ToolError({
      httpStatus: 500,
      message: `${name} failed: ${envelope.errorCode ?? "ERROR"} at stage ${envelope.stage} (HTTP ${answer.httpStatus}, traceId ${envelope.traceId}): ${envelope.error ?? "no message"}`,
      errorCode: envelope.errorCode,
      stage: envelope.stage,
      traceId: envelope.traceId
    })
  }
  return envelope.data
})
