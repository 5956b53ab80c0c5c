/**
 * The relay's fee-payer key: an Ed25519 KeyObject made from its seed, kept inside the relay (the
 * wallets' keys are never here). Only the address and signatures leave this module.
 */
import bs58 from "bs58"
import { createPrivateKey, createPublicKey, randomBytes, sign } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex")

export interface RelaySigner {
  readonly address: string
  sign(message: Uint8Array): Uint8Array
}

export const relaySigner = (seed: Uint8Array): RelaySigner => {
  if (seed.length !== 32) throw new Error("the relay's fee-payer seed must be 32 bytes")
  const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" })
  const jwk = createPublicKey(privateKey).export({ format: "jwk" })
  const address = bs58.encode(Buffer.from(jwk.x ?? "", "base64url"))
  return { address, sign: (message) => new Uint8Array(sign(null, message, privateKey)) }
}

/**
 * The seed from GASLESS_RELAY_PRIVATE_KEY (base58 of a 64-byte Solana secret key or a 32-byte seed),
 * else one generated once into DATA_DIR/gasless-relay-key.json (mode 0600) and reused.
 */
export const loadRelaySeed = (configured: string | undefined, dataDir: string): Uint8Array => {
  if (configured !== undefined && configured.trim() !== "") {
    let bytes: Uint8Array
    try {
      bytes = bs58.decode(configured.trim())
    } catch {
      throw new Error("GASLESS_RELAY_PRIVATE_KEY is not base58")
    }
    if (bytes.length === 64 || bytes.length === 32) return bytes.subarray(0, 32)
    throw new Error("GASLESS_RELAY_PRIVATE_KEY must be a 64-byte secret key or a 32-byte seed")
  }
  const file = path.join(dataDir, "gasless-relay-key.json")
  if (fs.existsSync(file)) return Buffer.from((JSON.parse(fs.readFileSync(file, "utf8")) as { seed: string }).seed, "base64")
  fs.mkdirSync(dataDir, { recursive: true })
  const seed = randomBytes(32)
  fs.writeFileSync(file, JSON.stringify({ seed: seed.toString("base64") }), { mode: 0o600 })
  return seed
}
