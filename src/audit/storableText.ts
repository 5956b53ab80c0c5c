/**
 * Text as PostgreSQL can store it: a NUL or an unpaired UTF-16 surrogate becomes U+FFFD. The gateway
 * refuses such input (src/gateway/inputSafety.ts); this keeps any value that still arrives (from an
 * adapter, a ledger log, an error message) from failing an audit or metric write.
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g

export const storableText = (text: string): string => text.replace(UNSTORABLE, "\uFFFD")

export const storableOrNull = (text: string | null | undefined): string | null =>
  text === null || text === undefined ? null : storableText(text)

/** JSON for a jsonb column: bigint as decimal text, every string value storable. */
export const storableJson = (value: unknown): string =>
  JSON.stringify(value ?? {}, (_key, v: unknown) =>
    typeof v === "bigint" ? v.toString() : typeof v === "string" ? storableText(v) : v
  )
