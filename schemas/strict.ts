/**
 * Strict input (docs/decisions/input-hardening.md): an input schema refuses the fields it does not know, at
 * every level whose shape it declares, so a misspelt safety field (`requireAproval`) is a 400 naming it and
 * is never silently dropped. A Record (a map of any keys, such as audit `metadata`) stays open by definition.
 *
 *   export const CreateThingBody = Schema.Struct({ ... }).pipe(strict)
 *
 * The annotation holds for the schema and everything nested in it (unless a nested schema says otherwise).
 * The gateway's decoders (src/gateway/request.ts) decode every body and query strictly anyway; mark an input
 * schema strict so every other decoder of it (MCP tool arguments, the SDK, tests) reads it the same way.
 */
import type * as Schema from "effect/Schema"

export const STRICT_INPUT = { parseOptions: { onExcessProperty: "error" } } as const

export const strict = <S extends Schema.Annotable.All>(schema: S): Schema.Annotable.Self<S> =>
  schema.annotations(STRICT_INPUT) as Schema.Annotable.Self<S>

// ---- how a refused unknown field is described -------------------------------------------------

/**
 * An unknown field as Effect's ArrayFormatter reports an excess property (`is unexpected, expected: "a" | "b"`).
 * The message names every unknown field and, for a likely typo, the field meant
 * (`requireAproval: unknown field; did you mean requireApproval?`), else the fields known there.
 */
export interface UnexpectedIssue {
  /** The field's path as messages write it (`intent.memo`). */
  readonly field: string
  /** The unknown key itself. */
  readonly key: string
  readonly message: string
}

const knownNames = (message: string): ReadonlyArray<string> => {
  const list = message.split("expected:")[1] ?? ""
  return [...list.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((match) => match[1]!)
}

/** Edit distance (insertions, deletions, substitutions, adjacent swaps), case-insensitive. */
const distance = (left: string, right: string): number => {
  const a = left.toLowerCase()
  const b = right.toLowerCase()
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1)
      rows[i]![j] = best
    }
  }
  return rows[a.length]![b.length]!
}

/** The known name a typo most likely meant: within a third of its length (at least 1) edits. */
export const likelyMeant = (typed: string, known: ReadonlyArray<string>): string | undefined => {
  let best: { name: string; cost: number } | undefined
  for (const name of known) {
    const cost = distance(typed, name)
    if (cost <= Math.max(1, Math.floor(name.length / 3)) && (best === undefined || cost < best.cost)) best = { name, cost }
  }
  return best?.name
}

const MAX_LISTED = 16

const hint = (issue: UnexpectedIssue, noun: string): string => {
  const known = knownNames(issue.message)
  const meant = likelyMeant(issue.key, known)
  if (meant !== undefined) return `did you mean ${meant}?`
  if (known.length === 0) return `no ${noun}s are accepted here`
  const listed = known.slice(0, MAX_LISTED).join(", ")
  return `known ${noun}s here: ${listed}${known.length > MAX_LISTED ? ", ..." : ""}`
}

/**
 * `first: unknown field; did you mean x?` plus `(also unknown: b, c.d)` when there are more; `noun` names
 * what they are (`query parameter`).
 */
export const unknownFieldsMessage = (issues: ReadonlyArray<UnexpectedIssue>, noun = "field"): string => {
  const [first, ...others] = issues
  if (first === undefined) return "body: is invalid"
  const also = others.length === 0 ? "" : ` (also unknown: ${others.map((issue) => issue.field).join(", ")})`
  return `${first.field}: unknown ${noun}; ${hint(first, noun)}${also}`
}
