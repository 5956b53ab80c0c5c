import { Cause, Effect, Either, Exit, Option, ParseResult, Schema } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ErrorCodeSchema } from "../../schemas/envelope.js"
import { TransactionStage, TransactionStatus } from "../../schemas/transaction.js"
import { decodeRows, JsonObject, OneOf, RowDecodeError, Timestamp } from "../../src/db/rowDecoding.js"

const Row = Schema.Struct({ id: Schema.String, created_at: Timestamp })
const read = (rows: ReadonlyArray<unknown>) => Effect.runPromiseExit(Effect.succeed(rows).pipe(decodeRows("wallets", Row)))

describe("decodeRows", () => {
  it("answers the rows as the schema types them, without the columns it does not name", async () => {
    const createdAt = new Date("2026-11-27T00:00:00.000Z")
    const exit = await read([{ id: "a", created_at: createdAt, page_key: ["x"] }])
    expect(exit).toEqual(Exit.succeed([{ id: "a", created_at: createdAt }]))
  })

  it("dies with a RowDecodeError naming the table when a row does not decode (never a typed failure)", async () => {
    const exit = await read([{ id: "a", created_at: "2026-11-27T00:00:00.000Z" }])
    expect(Exit.isFailure(exit) && Option.isNone(Cause.failureOption(exit.cause))).toBe(true)
    const defect = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    expect(defect).toBeInstanceOf(RowDecodeError)
    expect((defect as RowDecodeError).table).toBe("wallets")
    expect((defect as RowDecodeError).message).toMatch(/^a row of wallets does not decode: .*created_at/s)
  })

  it("passes the statement's own failure through unchanged", async () => {
    const exit = await Effect.runPromiseExit(Effect.fail("connection lost").pipe(decodeRows("wallets", Row)))
    expect(exit).toEqual(Exit.fail("connection lost"))
  })

  // The row columns' fast checks accept exactly what Schema's own Record and literal union accept, and answer the same values.
  const decodeEither = <A, I>(schema: Schema.Schema<A, I>) => Schema.decodeUnknownEither(schema)

  it("checks a jsonb column as an object, accepting what a Record of unknown values would, and keeps it whole", () => {
    const record = decodeEither(Schema.Record({ key: Schema.String, value: Schema.Unknown }))
    const jsonObject = decodeEither(JsonObject)
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), fc.dictionary(fc.string(), fc.jsonValue())), (value) => {
        const expected = record(value)
        const actual = jsonObject(value)
        expect(Either.isRight(actual)).toBe(Either.isRight(expected))
        if (Either.isRight(actual)) expect(actual.right).toBe(value)
      })
    )
    for (const refused of [null, [], [{ a: 1 }], "{}", 1, true]) expect(Either.isLeft(jsonObject(refused))).toBe(true)
    // kept as stored: the Record's copy turned a "__proto__" key into the copy's prototype
    const stored = JSON.parse('{"__proto__": {"a": 1}, "b": 2}') as unknown
    expect(Either.getOrThrow(jsonObject(stored))).toBe(stored)
    expect(Object.keys(Either.getOrThrow(jsonObject(stored)))).toEqual(["__proto__", "b"])
  })

  /** OneOf(literal) accepts exactly the values the literal's union does, and answers them as they are. */
  const agreesWithItsUnion = <const Literals extends readonly [string, ...Array<string>]>(literal: Schema.Literal<Literals>) => {
    const union = decodeEither(literal)
    const oneOf = decodeEither(OneOf(literal))
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...literal.literals), fc.string(), fc.anything()), (value) => {
        const expected = union(value)
        const actual = oneOf(value)
        expect(Either.isRight(actual)).toBe(Either.isRight(expected))
        if (Either.isRight(expected)) expect(actual).toEqual(Either.right(value))
      })
    )
  }

  it("checks a text column against its literals as their union would, and names them when it refuses", () => {
    agreesWithItsUnion(TransactionStatus)
    agreesWithItsUnion(TransactionStage)
    agreesWithItsUnion(ErrorCodeSchema)
    const refused = decodeEither(Schema.Struct({ status: OneOf(TransactionStatus) }))({ status: "paid" })
    expect(Either.isLeft(refused) && ParseResult.TreeFormatter.formatErrorSync(refused.left)).toMatch(/Expected TransactionStatus, actual "paid"/)
  })
})
