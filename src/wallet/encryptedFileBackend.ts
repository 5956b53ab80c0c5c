/**
 * Key backend `encrypted-file`: each wallet's seed sealed with AES-256-GCM (keyCipher.ts) under a key
 * derived from WALLET_KEY_ENCRYPTION_SECRET, stored in the database (`sealed_keys`, store `encrypted-file`)
 * with the KDF salt it was sealed under. The name is historical: the sealed seeds were files under
 * DATA_DIR/keys, which start-up imports once (keyFileImport.ts). Any process with DATABASE_URL and the
 * secret opens any wallet's key; the database alone opens none.
 *
 * New seeds use the deployment's salt (row `kdf-salt`, made once: the imported DATA_DIR's salt when there
 * was one, else random), so the slow scrypt runs once per process and salt, not per wallet, on the thread
 * pool: started when the backend opens and awaited by the first create or load, so a start (restart to
 * /health) does not wait for its ~200 ms.
 */
import { randomBytes } from "node:crypto"
import { type Ed25519Key, generateKey, keyFromSeed } from "./ed25519.js"
import { deriveKeyEncryptionKeyOffThread, openSeed, sealSeed, type SealedSeed } from "./keyCipher.js"
import type { SealedRecords } from "./sealedKeyRepo.js"

/** A row of store `encrypted-file`: the sealed seed as the key file held it, and the salt of its key. */
export interface SealedSeedRecord extends SealedSeed {
  /** The scrypt salt, base64. */
  readonly salt: string
}

export const SALT_ROW = "kdf-salt"

/** The deployment's salt: the one stored, else `proposed` (made random when not given), stored once for all. */
export const deploymentSalt = async (records: SealedRecords, proposed: Buffer = randomBytes(32)): Promise<Buffer> => {
  await records.insert("encrypted-file", SALT_ROW, { salt: proposed.toString("base64") })
  const stored = (await records.get("encrypted-file", SALT_ROW)) as { salt?: string } | undefined
  if (stored?.salt === undefined) throw new Error("the encrypted-file KDF salt could not be stored")
  return Buffer.from(stored.salt, "base64")
}

export class EncryptedFileBackend {
  /** Key-encryption keys by salt (base64): scrypt is deliberately slow, so each is derived once. */
  private readonly keks = new Map<string, Promise<Buffer>>()

  private constructor(
    private readonly records: SealedRecords,
    private readonly secret: string,
    private readonly salt: string
  ) {}

  static async open(records: SealedRecords, secret: string): Promise<EncryptedFileBackend> {
    const backend = new EncryptedFileBackend(records, secret, (await deploymentSalt(records)).toString("base64"))
    // Derived now, awaited at first use (a failure is seen there, not as an unhandled rejection here).
    backend.kekOf(backend.salt).catch(() => {})
    return backend
  }

  private kekOf(salt: string): Promise<Buffer> {
    let kek = this.keks.get(salt)
    if (kek === undefined) {
      kek = deriveKeyEncryptionKeyOffThread(this.secret, Buffer.from(salt, "base64"))
      this.keks.set(salt, kek)
      // A failed derivation is not kept: the next use tries again.
      kek.catch(() => this.keks.delete(salt))
    }
    return kek
  }

  async create(walletId: string): Promise<Ed25519Key> {
    const kek = await this.kekOf(this.salt)
    const { key, seed } = generateKey()
    const record: SealedSeedRecord = { ...sealSeed(kek, walletId, seed), salt: this.salt }
    seed.fill(0)
    if (!(await this.records.insert("encrypted-file", walletId, record))) throw new Error(`wallet ${walletId} already has a sealed key`)
    return key
  }

  /** The key, or undefined when none is stored. Throws when the secret cannot open it. */
  async load(walletId: string): Promise<Ed25519Key | undefined> {
    const record = (await this.records.get("encrypted-file", walletId)) as SealedSeedRecord | undefined
    if (record === undefined) return undefined
    const seed = openSeed(await this.kekOf(record.salt), walletId, record)
    const key = keyFromSeed(seed)
    seed.fill(0)
    return key
  }
}
