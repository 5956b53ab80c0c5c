/** The shared internal token between the transaction engine and the wallet engine, compared in constant time. */
import { createHash, timingSafeEqual } from "node:crypto"

const digest = (value: string) => createHash("sha256").update(value, "utf8").digest()

export const INTERNAL_TOKEN_HEADER = "authorization"

export const bearer = (token: string) => `Bearer ${token}`

/** A checker that holds only the token's digest. */
export const tokenChecker = (token: string) => {
  const expected = digest(token)
  return (header: string | undefined): boolean => {
    if (header === undefined || !header.startsWith("Bearer ")) return false
    return timingSafeEqual(digest(header.slice("Bearer ".length)), expected)
  }
}
