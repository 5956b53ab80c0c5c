/**
 * Turns a Schema ParseError into "rules[2].maxBps: must be between 0 and 10000" lines, one per field
 * (the first message of each path: a union reports one line per member, which only repeats itself); an
 * unknown field reads `rules[0].maxLamportPerTx: unknown field; did you mean maxLamportsPerTx?`.
 */
import * as ParseResult from "effect/ParseResult"
import { unknownFieldsMessage } from "../../schemas/strict.js"

export const formatPath = (prefix: string, path: ReadonlyArray<PropertyKey>): string => {
  let out = prefix
  for (const segment of path) {
    out += typeof segment === "number" ? `[${segment}]` : out === "" ? String(segment) : `.${String(segment)}`
  }
  return out === "" ? "(root)" : out
}

export const formatParseError = (error: ParseResult.ParseError, prefix = ""): Array<string> => {
  const seen = new Set<string>()
  const lines: Array<string> = []
  for (const issue of ParseResult.ArrayFormatter.formatErrorSync(error)) {
    const path = formatPath(prefix, issue.path)
    if (seen.has(path)) continue
    seen.add(path)
    const key = String(issue.path[issue.path.length - 1] ?? "")
    lines.push(issue._tag === "Unexpected" ? unknownFieldsMessage([{ field: path, key, message: issue.message }]) : `${path}: ${issue.message}`)
  }
  return lines
}
