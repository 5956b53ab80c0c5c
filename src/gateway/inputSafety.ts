/**
 * The one check every outside input passes before a schema sees it (body, query, path parameters):
 * no nesting deeper than MAX_INPUT_DEPTH (a 5,000-deep body overflowed the stack while its decode
 * error was formatted), and no string, value or key, with a NUL character or an unpaired UTF-16
 * surrogate (PostgreSQL refuses both, so such a value would fail at a write, e.g. poisoning a batch).
 * The walk is iterative, so no input can overflow the stack here either.
 */
import { ValidationError } from "../../schemas/errors.js"

/** Far deeper than any body of the spec (an intent inside a request inside a list is < 10). */
export const MAX_INPUT_DEPTH = 32

/** A NUL, a high surrogate not followed by a low one, or a low surrogate not preceded by a high one. */
const UNSAFE_CHARACTER = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

export const isSafeText = (text: string) => !UNSAFE_CHARACTER.test(text)

const describe = (text: string) =>
  text.includes("\u0000") ? "must not contain a NUL character" : "must not contain an unpaired UTF-16 surrogate"

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

/**
 * The path of a field as messages write it: `rules[2].maxBps`; a key that is no identifier is quoted
 * (`metadata["a b"]`), so the field name always ends at the first `: ` of the message.
 */
export const childPath = (path: string, key: PropertyKey): string =>
  typeof key === "number"
    ? `${path === "" ? "body" : path}[${key}]`
    : IDENTIFIER.test(String(key))
      ? path === "" ? String(key) : `${path}.${String(key)}`
      : `${path === "" ? "body" : path}[${JSON.stringify(String(key))}]`

const fail = (path: string, detail: string) => {
  const field = path === "" ? "body" : path
  return new ValidationError({ message: `${field}: ${detail}`, field })
}

/** The first unsafe part of `input` as a ValidationError naming its field (under `root`), else undefined. */
export const unsafeInput = (input: unknown, root = ""): ValidationError | undefined => {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: input, path: root, depth: 0 }]
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop()!
    if (typeof value === "string") {
      if (!isSafeText(value)) return fail(path, describe(value))
      continue
    }
    if (typeof value !== "object" || value === null) continue
    if (depth >= MAX_INPUT_DEPTH) return fail(path, `is nested deeper than ${MAX_INPUT_DEPTH} levels`)
    if (Array.isArray(value)) {
      for (let index = value.length - 1; index >= 0; index--) {
        stack.push({ value: value[index], path: childPath(path, index), depth: depth + 1 })
      }
      continue
    }
    const keys = Object.keys(value)
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index]
      if (!isSafeText(key)) return fail(path, `has a key that ${describe(key)}`)
      stack.push({ value: (value as Record<string, unknown>)[key], path: childPath(path, key), depth: depth + 1 })
    }
  }
  return undefined
}
