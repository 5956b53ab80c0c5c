/**
 * Ed25519 keys as node:crypto KeyObjects (about 14x faster than signing in JavaScript). A key is
 * created from its 32-byte seed; the seed and the KeyObject never leave the wallet component.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject, sign } from "node:crypto"

// DER prefix of a PKCS#8 Ed25519 private key; the 32-byte seed follows.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex")

export interface Ed25519Key {
  readonly privateKey: KeyObject
  readonly publicKey: Uint8Array
}

const rawPublicKey = (privateKey: KeyObject): Uint8Array => {
  const jwk = createPublicKey(privateKey).export({ format: "jwk" })
  return new Uint8Array(Buffer.from(jwk.x ?? "", "base64url"))
}

export const keyFromSeed = (seed: Uint8Array): Ed25519Key => {
  if (seed.length !== 32) throw new Error("an Ed25519 seed is 32 bytes")
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" })
  return { privateKey, publicKey: rawPublicKey(privateKey) }
}

/** A fresh key and its seed (the seed is what a backend stores, encrypted). */
export const generateKey = (): { key: Ed25519Key; seed: Uint8Array } => {
  const { privateKey } = generateKeyPairSync("ed25519")
  const jwk = privateKey.export({ format: "jwk" })
  const seed = new Uint8Array(Buffer.from(jwk.d ?? "", "base64url"))
  return { key: { privateKey, publicKey: rawPublicKey(privateKey) }, seed }
}

export const signBytes = (key: Ed25519Key, message: Uint8Array): Uint8Array =>
  new Uint8Array(sign(null, message, key.privateKey))
