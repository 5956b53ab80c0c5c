/**
 * Shared building blocks of the contract: identifiers, money, pagination, timestamps.
 * Money is exact: lamports and token base units decode to `bigint` and encode back to a JSON
 * integer while it is a safe integer, else to a decimal string.
 */
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"

export const Uuid = Schema.UUID.annotations({ identifier: "Uuid", message: () => "must be a UUID" })

/** A base58 Solana address (32 bytes): 32-44 characters of the base58 alphabet. */
export const Base58Address = Schema.String.pipe(
  Schema.pattern(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, { message: () => "must be a base58 address" })
).annotations({ identifier: "Base58Address" })

export const Timestamp = Schema.String.annotations({ identifier: "Timestamp", description: "ISO 8601" })

/** Lamports and token base units are u64 on chain: a larger amount is refused at validation. */
export const U64_MAX = 18_446_744_073_709_551_615n

const DecimalDigits = Schema.String.pipe(
  Schema.pattern(/^(0|[1-9][0-9]{0,19})$/, { message: () => "must be a non-negative integer string" })
)

const U64 = Schema.BigIntFromSelf.pipe(
  Schema.lessThanOrEqualToBigInt(U64_MAX, { message: () => `must be at most ${U64_MAX} (u64)` })
)
const SafeNonNegativeInt = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.nonNegative({ message: () => "must not be negative" }),
  Schema.lessThanOrEqualTo(Number.MAX_SAFE_INTEGER, { message: () => "is too large for a JSON number; send a decimal string" })
)

/**
 * A non-negative amount in base units (lamports or token units), at most u64: accepts a JSON integer or
 * a decimal string, decodes to bigint; encodes to a number when safe, else a string.
 */
export const Amount = Schema.transform(
  Schema.Union(SafeNonNegativeInt, DecimalDigits),
  U64,
  {
    strict: true,
    decode: (input) => BigInt(input),
    encode: (value) => (value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString())
  }
).annotations({ identifier: "Amount" })

/**
 * Lamports a service holds as decimal text (a jsonb value, a quote computed as a string): the same wire
 * form as Amount (a JSON integer; wireJson keeps one past 2^53 exact in a lamports field), decoded to the
 * decimal string again. Lets an answer declare such a field without converting it to bigint first.
 */
export const LamportsText = Schema.transform(Schema.Union(SafeNonNegativeInt, DecimalDigits), DecimalDigits, {
  strict: true,
  decode: (input) => String(input),
  encode: (text) => (BigInt(text) <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(text) : text)
}).annotations({ identifier: "Lamports" })

/** Token base units as a decimal string, as the spec shows token amounts (`"1000000"`). */
export const BaseUnitsText = DecimalDigits.annotations({ identifier: "BaseUnits", description: "token base units, a decimal string" })

/** A counter (bigint in the service, kept exact): a JSON integer on the wire, like Amount. */
export const Count = Amount.annotations({ identifier: "Count", description: "A non-negative integer counter" })

/** An amount that must be strictly positive. */
export const PositiveAmount = Amount.pipe(
  Schema.filter((value) => value > 0n, { message: () => "must be greater than 0" })
)

/** An amount always carried as a decimal string on the wire (token amounts in intents). */
export const AmountString = Schema.transform(
  Schema.Union(DecimalDigits, SafeNonNegativeInt),
  U64,
  { strict: true, decode: (input) => BigInt(input), encode: (value) => value.toString() }
).annotations({ identifier: "AmountString" })

export const BasisPoints = Schema.Number.pipe(
  Schema.int({ message: () => "must be an integer" }),
  Schema.between(0, 10_000, { message: () => "must be between 0 and 10000" })
)

export const Label = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be 1-128 characters" }),
  Schema.maxLength(128, { message: () => "must be 1-128 characters" })
)

/** A client's key for one intended create or move: sent again with it, the request answers what it did the first time. */
export const IdempotencyKey = Schema.String.pipe(
  Schema.minLength(1, { message: () => "must be 1-128 characters" }),
  Schema.maxLength(128, { message: () => "must be 1-128 characters" })
)

/** Query-string integers arrive as text. */
const IntFromQuery = Schema.NumberFromString.pipe(Schema.int({ message: () => "must be an integer" }))

const notACursor = "must be a nextCursor this list answered"

// base64url over UTF-8 with what every JavaScript runtime has (no Buffer: the schemas also run in browsers).
const toBase64Url = (text: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(text))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
const fromBase64Url = (text: string) =>
  new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(text.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0)))

/**
 * A page cursor (docs/decisions/production.md "Lists"): opaque to clients, the `nextCursor` of the page
 * before. Inside, base64url of the JSON array of the last item's sort key (its values as text); the list
 * checks the values against its own key.
 */
export const PageCursor = Schema.transformOrFail(
  Schema.String.pipe(Schema.pattern(/^[A-Za-z0-9_-]{1,512}$/, { message: () => notACursor })),
  Schema.Array(Schema.String),
  {
    strict: true,
    decode: (text, _options, ast) => {
      let values: unknown
      try {
        values = JSON.parse(fromBase64Url(text))
      } catch {
        values = undefined
      }
      return Array.isArray(values) && values.length > 0 && values.every((value) => typeof value === "string")
        ? ParseResult.succeed(values as Array<string>)
        : ParseResult.fail(new ParseResult.Type(ast, text, notACursor))
    },
    encode: (values) => ParseResult.succeed(toBase64Url(JSON.stringify(values)))
  }
).annotations({ identifier: "PageCursor" })

/** The `nextCursor` a page answers for its last item's sort key. */
export const encodePageCursor = Schema.encodeSync(PageCursor)

export const PaginationQuery = Schema.Struct({
  limit: Schema.optionalWith(
    IntFromQuery.pipe(Schema.between(1, 100, { message: () => "must be between 1 and 100" })),
    { default: () => 50 }
  ),
  offset: Schema.optionalWith(
    IntFromQuery.pipe(Schema.nonNegative({ message: () => "must not be negative" })),
    { default: () => 0 }
  ),
  /** Continue after the page that answered this `nextCursor` (stable while rows are added; offset then skips within what follows). */
  cursor: Schema.optionalWith(PageCursor, { exact: true })
})
export type PaginationQuery = typeof PaginationQuery.Type

/**
 * The query of a list that answers a bare array (kept for compatibility): at most `limit` items (1-100,
 * default 100), the rest after `cursor`; the next page's cursor comes in the `x-next-cursor` header.
 */
export const ArrayPageQuery = Schema.Struct({
  limit: Schema.optionalWith(
    IntFromQuery.pipe(Schema.between(1, 100, { message: () => "must be between 1 and 100" })),
    { default: () => 100 }
  ),
  cursor: Schema.optionalWith(PageCursor, { exact: true })
})

/**
 * How a list counts its matches: exactly up to LIST_TOTAL_CAP, beyond which `total` is the cap and `totalCapped`
 * true. Counting costs as much as the rows it counts: a thousand index entries is well under a millisecond,
 * ten thousand was 5-6 ms (the whole cost of a page of a grown audit log; docs/decisions/production.md).
 */
export const LIST_TOTAL_CAP = 1_000

/** The page fields every list answers beside its items. */
export const PageFields = {
  total: Schema.Number,
  /** True when more than LIST_TOTAL_CAP items match (`total` is then the cap, not the count). */
  totalCapped: Schema.Boolean,
  limit: Schema.Number,
  offset: Schema.Number,
  /** Send as `?cursor=` for the next page; null on the last page. */
  nextCursor: Schema.NullOr(Schema.String)
}

export const Page = <K extends string, A, I, R>(itemsKey: K, item: Schema.Schema<A, I, R>) =>
  Schema.Struct({
    ...({ [itemsKey]: Schema.Array(item) } as { readonly [P in K]: Schema.Array$<Schema.Schema<A, I, R>> }),
    ...PageFields
  })
