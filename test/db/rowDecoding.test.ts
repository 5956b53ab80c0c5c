import { Cause, Effect, Exit, Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { decodeRows, RowDecodeError, Timestamp } from "../../src/db/rowDecoding.js"

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
})
