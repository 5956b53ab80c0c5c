/**
 * The JSON text of a response. Lamports are exact JSON integers on the wire, of any size (spec:
 * "Lamports are integers"): a bigint leaves as an integer literal, also beyond 2^53 (JSON.stringify
 * refuses bigints and a JS number would round), and so does a decimal string in a field named for
 * lamports (`lamports`, `preBalanceLamports`, ...) that was kept as text in a jsonb column, and the `amount` of
 * a position in SOL (`token: "SOL"`: native SOL, lamports locked in an escrow), which is lamports. Token
 * amounts (`amount` of any other token) stay decimal strings, as the spec shows them.
 */
import { randomUUID } from "node:crypto"

/** Stands in for an integer literal until the text is complete; unguessable, so no client string can pose as one. */
const MARK = `#int-${randomUUID()}:`
const MARKED = new RegExp(`"${MARK}(-?\\d+)"`, "g")
const INTEGER = /^-?(0|[1-9][0-9]*)$/
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)

const isLamportField = (key: string) => key.endsWith("amports") && /(^l|L|_l)amports$/.test(key)

/** A position's amount in SOL is lamports (walletPositions.ts); any other token's stays a decimal string. */
const isSolAmount = (key: string, holder: unknown) =>
  key === "amount" && typeof holder === "object" && holder !== null && (holder as { readonly token?: unknown }).token === "SOL"

export const wireJson = (value: unknown): string => {
  let marked = false
  const integer = (n: bigint) => {
    if (n <= MAX_SAFE && n >= -MAX_SAFE) return Number(n)
    marked = true
    return MARK + n.toString()
  }
  const text = JSON.stringify(value, function (this: unknown, key, v: unknown) {
    if (typeof v === "bigint") return integer(v)
    if (typeof v === "string" && (isLamportField(key) || isSolAmount(key, this)) && INTEGER.test(v)) return integer(BigInt(v))
    return v
  })
  return marked ? text.replace(MARKED, "$1") : text
}
