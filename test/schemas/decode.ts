/** Decoding helpers for schema tests: the outcome a handler would see, with field paths as strings. */
import { Either, ParseResult } from "effect"
import * as Schema from "effect/Schema"

export interface FieldIssue {
  readonly path: string
  readonly message: string
}

export const decodeOk = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): A =>
  Schema.decodeUnknownSync(schema, { errors: "all" })(input)

/** Decodes and returns every issue as `{ path: "intent.lamports", message }`; [] when valid. */
export const issuesOf = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): ReadonlyArray<FieldIssue> => {
  const result = Schema.decodeUnknownEither(schema, { errors: "all" })(input)
  if (Either.isRight(result)) return []
  return ParseResult.ArrayFormatter.formatErrorSync(result.left).map((issue) => ({
    path: issue.path.join("."),
    message: issue.message
  }))
}

/** The distinct failing field paths, sorted. */
export const pathsOf = <A, I>(schema: Schema.Schema<A, I, never>, input: unknown): Array<string> =>
  [...new Set(issuesOf(schema, input).map((issue) => issue.path))].sort()
