/**
 * A declared route's answer leaves encoded by its success schema (docs/decisions/api-contract.md): the
 * handler's `data` goes through `Schema.encode` of the endpoint's `success`, so a field the contract does
 * not name is dropped and a value of the wrong shape is refused. A refused answer is a bug of the handler:
 * the caller gets the 500 envelope and the log names the fields at fault, never their values (they may
 * be secrets). What the encoded value then looks like on the wire is wireJson's (lamports as integers).
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

/** The encoded reply, or the mismatch; undefined when the route declares no success schema. */
export type AnswerEncoder = (reply: Reply) => Either.Either<Reply, AnswerMismatch>

/** ParseResult's messages end in `, actual <value>`: kept out of the log. */
const withoutActual = (message: string) => {
  const at = message.indexOf(", actual ")
  return at === -1 ? message : message.slice(0, at)
}

const pathText = (path: ReadonlyArray<PropertyKey>) => (path.length === 0 ? "data" : `data.${path.map(String).join(".")}`)

const mismatchOf = (schema: AnySchema, data: unknown): AnswerMismatch => {
  // The failure path only: run again collecting every issue, so the log lists them all.
  const all = Schema.encodeUnknownEither(schema, { errors: "all" })(data)
  const issues = Either.isLeft(all)
    ? ParseResult.ArrayFormatter.formatErrorSync(all.left).map((issue) => ({ path: pathText(issue.path), expected: withoutActual(issue.message) }))
    : []
  return { issues }
}

/**
 * Compiled once per route (the parser of the schema is built here, not per request). Encodes a success's
 * data, and the record a failure carries where the endpoint answers one (`recordOnFailure`); other
 * failures' data (null, or an error's details) is not the declared resource and passes as it is.
 */
export const answerEncoder = (endpoint: Endpoint): AnswerEncoder | undefined => {
  const schema = endpoint.success
  if (schema === undefined) return undefined
  const encode = Schema.encodeUnknownEither(schema)
  const decode = Schema.decodeUnknownEither(schema)
  return (reply) => {
    if (reply.failure !== undefined && (!endpoint.recordOnFailure || reply.data === null || reply.data === undefined)) return Either.right(reply)
    const data = reply.data ?? null
    const encoded = encode(data)
    if (Either.isRight(encoded)) return Either.right({ ...reply, data: encoded.right })
    const reencoded = Either.flatMap(decode(data), encode)
    return Either.isRight(reencoded) ? Either.right({ ...reply, data: reencoded.right }) : Either.left(mismatchOf(schema, data))
  }
}
