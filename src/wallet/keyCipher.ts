/**
 * Encryption of key seeds at rest: AES-256-GCM under a key derived from WALLET_KEY_ENCRYPTION_SECRET
 * with scrypt (N=2^15, r=8, p=1) and a random salt stored beside the keys. The derived key is computed
 * once per process; every seed gets its own random 96-bit IV, and the wallet id is bound as AAD so a
 * key file cannot be swapped onto another wallet.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt, scryptSync } from "node:crypto"

export interface SealedSeed {
  readonly v: 1
  readonly iv: string
  readonly tag: string
  readonly ciphertext: string
}

const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const

export const deriveKeyEncryptionKey = (secret: string, salt: Uint8Array): Buffer =>
  scryptSync(secret, salt, 32, SCRYPT)

/** The same key, derived on libuv's thread pool: the ~200 ms of scrypt leave the event loop free meanwhile. */
export const deriveKeyEncryptionKeyOffThread = (secret: string, salt: Uint8Array): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(secret, salt, 32, SCRYPT, (error, key) => (error === null ? resolve(key) : reject(error))))

export const sealSeed = (kek: Buffer, walletId: string, seed: Uint8Array): SealedSeed => {
  const iv = randomBytes(12)
  const cipher = createCipheriv("aes-256-gcm", kek, iv)
  cipher.setAAD(Buffer.from(walletId, "utf8"))
  const ciphertext = Buffer.concat([cipher.update(seed), cipher.final()])
  return { v: 1, iv: iv.toString("base64"), tag: cipher.getAuthTag().toString("base64"), ciphertext: ciphertext.toString("base64") }
}

/** Throws when the secret is wrong or the file was tampered with (GCM authentication fails). */
export const openSeed = (kek: Buffer, walletId: string, sealed: SealedSeed): Uint8Array => {
  const decipher = createDecipheriv("aes-256-gcm", kek, Buffer.from(sealed.iv, "base64"))
  decipher.setAAD(Buffer.from(walletId, "utf8"))
  decipher.setAuthTag(Buffer.from(sealed.tag, "base64"))
  return new Uint8Array(Buffer.concat([decipher.update(Buffer.from(sealed.ciphertext, "base64")), decipher.final()]))
}
