/**
 * The JSON form of node operation arguments and answers over HTTP: byte arrays become {"$hex": ...},
 * everything else is plain JSON. Decoding accepts only plain JSON shapes (no prototypes are created).
 */
type Wire = null | boolean | number | string | ReadonlyArray<Wire> | { readonly [key: string]: Wire }

export const toWire = (value: unknown): Wire => {
  if (value instanceof Uint8Array) return { $hex: Buffer.from(value).toString("hex") }
  if (Array.isArray(value)) return value.map(toWire)
  if (value === undefined) return null
  if (value !== null && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toWire(v)]))
  return value as Wire
}

const HEX = /^(?:[0-9a-f]{2})*$/i

export const fromWire = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(fromWire)
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
    if (entries.length === 1 && entries[0]![0] === "$hex") {
      const hex = entries[0]![1]
      if (typeof hex !== "string" || !HEX.test(hex)) throw new Error("$hex must be a hex string")
      return Uint8Array.from(Buffer.from(hex, "hex"))
    }
    return Object.fromEntries(entries.filter(([k]) => k !== "__proto__").map(([k, v]) => [k, fromWire(v)]))
  }
  return value
}
