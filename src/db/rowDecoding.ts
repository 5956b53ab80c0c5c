/**
 * Rows decoded at the repository edge: what a statement returns passes through the Schema of its
 * table's row before any code reads it, and a row that does not decode is a defect that names the
 * table (a schema drift or a bug, never something a caller can handle), not a cast to a row type.
 */
import { Data, Effect, Either, ParseResult, Schema } from "effect"

/** A row of `table` without the shape its repository reads. */
export class RowDecodeError extends Data.TaggedError("RowDecodeError")<{ readonly table: string; readonly details: string }> {
  override get message() {
    return `a row of ${this.table} does not decode: ${this.details}`
  }
}

/** timestamptz: node-postgres parses it into a Date. */
export const Timestamp = Schema.DateFromSelf

/** int8 and numeric: node-postgres keeps them as exact decimal strings. */
export const Int8 = Schema.String

/**
 * A jsonb object whose keys the reading code looks at itself. node-postgres made it with JSON.parse, so every key is
 * a string: checked as an object and kept as stored, not checked and copied key by key as a Record schema does
 * (about 0.4 us a column, nine on a transactions row; and the copy made a "__proto__" key its prototype).
 */
export const JsonObject = Schema.declare(
  (value: unknown): value is { readonly [key: string]: unknown } => typeof value === "object" && value !== null && !Array.isArray(value),
  { identifier: "JsonObject", description: "a JSON object" }
)

/**
 * A text column holding one of `literal`'s values, checked against a set: Schema's union of literals tries its
 * members one by one (about 0.6 us a column on a transactions row, against 0.1).
 */
export const OneOf = <const Literals extends ReadonlyArray<string>>(literal: Schema.Schema<Literals[number]> & { readonly literals: Literals }) => {
  const values: ReadonlySet<string> = new Set(literal.literals)
  return Schema.declare((value: unknown): value is Literals[number] => typeof value === "string" && values.has(value), {
    // what a refused row's message names (the literal's identifier, or its values)
    identifier: String(literal)
  })
}

/**
 * The rows of a statement, decoded by `row` (`sql\`...\`.pipe(decodeRows("wallets", WalletRow))`):
 * each row as the schema types it, the columns it does not name left out.
 */
export const decodeRows = <A, I>(table: string, row: Schema.Schema<A, I, never>) => {
  // Row by row, synchronously: the row schema's parser is built once (Schema memoizes it per schema).
  const decode = Schema.decodeUnknownEither(row)
  return <E, R>(rows: Effect.Effect<ReadonlyArray<unknown>, E, R>): Effect.Effect<ReadonlyArray<A>, E, R> =>
    Effect.flatMap(rows, (read) => {
      const decoded: Array<A> = []
      for (const value of read) {
        const result = decode(value)
        if (Either.isLeft(result)) return Effect.die(new RowDecodeError({ table, details: ParseResult.TreeFormatter.formatErrorSync(result.left) }))
        decoded.push(result.right)
      }
      return Effect.succeed(decoded)
    })
}
