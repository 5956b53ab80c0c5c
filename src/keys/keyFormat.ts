/**
 * The format of an issued API key ([n19], docs/decisions/access.md "Key format"):
 *
 *   agck_<id: 16 hex>_<secret: 43 base62><checksum: 6 base62>
 *
 * `agck_` ("agent custody key") lets a secret scanner recognise one; the id is public (listed, logged,
 * audited, the rate limiter's key); the secret is 256 random bits; the checksum (CRC-32 of everything
 * before it) lets a scanner tell a real key from look-alike text without asking us, and lets the
 * gateway refuse a mistyped key without a lookup. The service keeps only the SHA-256 of the whole key.
 */
import { createHash, randomBytes } from "node:crypto"
import { crc32 } from "node:zlib"

export const KEY_PREFIX = "agck_"
const ID_HEX = 16
const SECRET_CHARS = 43
const CHECKSUM_CHARS = 6
const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

/** What a scanner matches: the whole key and nothing around it. */
export const KEY_PATTERN = /^agck_([0-9a-f]{16})_([0-9A-Za-z]{43})([0-9A-Za-z]{6})$/
export const KEY_LENGTH = KEY_PREFIX.length + ID_HEX + 1 + SECRET_CHARS + CHECKSUM_CHARS

/** `value` in base62, left-padded to exactly `width` digits (it must fit). */
const base62 = (value: bigint, width: number) => {
  let digits = ""
  let rest = value
  for (let i = 0; i < width; i++) {
    digits = ALPHABET[Number(rest % 62n)] + digits
    rest /= 62n
  }
  return digits
}

const checksumOf = (body: string) => base62(BigInt(crc32(body)), CHECKSUM_CHARS)

/** `body` (`agck_<id>_<secret>`) with its checksum appended. */
export const checksummed = (body: string) => body + checksumOf(body)

export const keyDigest = (key: string): Buffer => createHash("sha256").update(key, "utf8").digest()

export const prefixOf = (id: string) => `${KEY_PREFIX}${id}`

export interface NewKey {
  readonly id: string
  /** The whole key, shown once. */
  readonly secret: string
  readonly digest: Buffer
}

export const newKey = (): NewKey => {
  const id = randomBytes(ID_HEX / 2).toString("hex")
  const body = `${prefixOf(id)}_${base62(BigInt(`0x${randomBytes(32).toString("hex")}`), SECRET_CHARS)}`
  const secret = checksummed(body)
  return { id, secret, digest: keyDigest(secret) }
}

/** The id of a presented key of our format whose checksum holds, or undefined (not one of ours, or mistyped). */
export const issuedKeyId = (presented: string): string | undefined => {
  if (presented.length !== KEY_LENGTH || !presented.startsWith(KEY_PREFIX)) return undefined
  const match = KEY_PATTERN.exec(presented)
  if (match === null) return undefined
  return checksumOf(presented.slice(0, -CHECKSUM_CHARS)) === match[3] ? match[1] : undefined
}
