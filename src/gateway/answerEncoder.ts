/**
 * A declared route's answer leaves encoded by its success schema (docs/decisions/api-contract.md): the
 * handler's `data` goes through `Schema.encode` of the endpoint's `success`. A field the contract does not
 * name is dropped (and, in a sample of answers, named in a warning, so the drift is seen); a value of the
 * wrong shape is refused:
 * that is a bug of the handler, so the caller gets the 500 envelope and the log names the fields at
 * fault, never their values (they may be secrets). The wire text of the encoded value is wireJson's
 * (lamports as exact integers).
 *
 * A handler answers the schema's Type (amounts as bigint). A resource some services keep in its wire form
 * (a policy's rules as stored in jsonb) is accepted in the schema's Encoded form too: it is decoded, so
 * checked in full, and encoded again; an answer that is neither (a mix, a wrong field) is refused.
 */
import { Either, ParseResult, Schema } from "effect"
import type { AnySchema, Endpoint } from "../../schemas/api/endpoint.js"
import type { Reply } from "./envelope.js"

/** Why an answer did not encode: each issue's path and what was expected there (no actual values). */
export interface AnswerMismatch {
  readonly issues: ReadonlyArray<{ readonly path: string; readonly expected: string }>
}

/** The encoded reply, and the paths of fields it dropped because the contract does not name them. */
export interface EncodedAnswer {
  readonly reply: Reply
  readonly undeclared: ReadonlyArray<string>
}

export type AnswerEncoder = (reply: Reply) => Either.Either<EncodedAnswer, AnswerMismatch>

/** ParseResult's messages end in `, actual <value>`: kept out of the log. */
const withoutActual = (message: string) => {
  const at = message.indexOf(", actual ")
  return at === -1 ? message : message.slice(0, at)
}

/** `data.transactions.*.field`: array indexes folded, so one drift reads (and is warned about) once. */
const pathText = (path: ReadonlyArray<PropertyKey>) =>
  ["data", ...path.map((key) => (typeof key === "number" ? "*" : String(key)))].join(".")

const issuesOf = (error: ParseResult.ParseError) =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({ tag: issue._tag, path: pathText(issue.path), expected: withoutActual(issue.message) }))

/** A route's first answers, then one in 256: where dropped fields are looked for (a drift is systematic, so a sample sees it). */
const sampled = (answer: number) => answer <= 16 || answer % 256 === 0

/** Encodes `data`, or decodes it (the Encoded form) and encodes it again. */
const encodeEither = (schema: AnySchema, options: { onExcessProperty: "error" | "ignore"; errors: "first" | "all" }) => {
  const encode = Schema.encodeUnknownEither(schema, options)
  const decode = Schema.decodeUnknownEither(schema, options)
  return (data: unknown) => {
    const encoded = encode(data)
    return Either.isRight(encoded) ? encoded : Either.orElse(Either.flatMap(decode(data), encode), () => encoded)
  }
}

/**
 * Compiled once per route (the schema's parsers are built here, not per request). Encodes a success's
 * data, and the record a failure carries where the endpoint answers one (`recordOnFailure`); other
 * failures' data (null, or an error's details) is not the declared resource and passes as it is.
 */
export const answerEncoder = (endpoint: Endpoint): AnswerEncoder | undefined => {
  const schema = endpoint.success
  if (schema === undefined) return undefined
  // The hot path: extra fields dropped, first problem only. (Refusing extra fields costs about twice as
  // much in Effect's parser, so which fields were dropped is only looked for in a sample, below.)
  const encode = encodeEither(schema, { onExcessProperty: "ignore", errors: "first" })
  // Only on a failure or a sampled answer: every issue, and the fields the contract does not name.
  const listingAll = encodeEither(schema, { onExcessProperty: "ignore", errors: "all" })
  const listingExtras = encodeEither(schema, { onExcessProperty: "error", errors: "all" })
  let answers = 0
  return (reply) => {
    if (reply.failure !== undefined && (!endpoint.recordOnFailure || reply.data === null || reply.data === undefined)) {
      return Either.right({ reply, undeclared: [] })
    }
    const data = reply.data ?? null
    const encoded = encode(data)
    if (Either.isLeft(encoded)) {
      const all = listingAll(data)
      return Either.left({ issues: Either.isLeft(all) ? issuesOf(all.left).map(({ path, expected }) => ({ path, expected })) : [] })
    }
    answers++
    if (!sampled(answers)) return Either.right({ reply: { ...reply, data: encoded.right }, undeclared: [] })
    const extras = listingExtras(data)
    const undeclared = Either.isLeft(extras) ? issuesOf(extras.left).filter((issue) => issue.tag === "Unexpected").map((issue) => issue.path) : []
    return Either.right({ reply: { ...reply, data: encoded.right }, undeclared: [...new Set(undeclared)] })
  }
}
