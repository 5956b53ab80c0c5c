/**
 * Key backend `encrypted-file`: one file per wallet under DATA_DIR/keys, holding only the sealed seed
 * (see keyCipher.ts). Processes that share DATA_DIR share the keys.
 */
import * as fs from "node:fs/promises"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import { type Ed25519Key, generateKey, keyFromSeed } from "./ed25519.js"
import { deriveKeyEncryptionKey, openSeed, sealSeed, type SealedSeed } from "./keyCipher.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export class EncryptedFileBackend {
  private constructor(
    private readonly directory: string,
    private readonly kek: Buffer
  ) {}

  /** Reads (or creates once) the KDF salt and derives the key-encryption key. */
  static async open(dataDir: string, secret: string): Promise<EncryptedFileBackend> {
    const directory = path.join(dataDir, "keys")
    await fs.mkdir(directory, { recursive: true, mode: 0o700 })
    const saltFile = path.join(directory, "kdf-salt")
    try {
      await fs.writeFile(saltFile, randomBytes(32), { flag: "wx", mode: 0o600 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
    }
    const salt = await fs.readFile(saltFile)
    return new EncryptedFileBackend(directory, deriveKeyEncryptionKey(secret, salt))
  }

  private fileOf(walletId: string) {
    if (!UUID.test(walletId)) throw new Error("wallet id must be a UUID")
    return path.join(this.directory, `${walletId}.json`)
  }

  async create(walletId: string): Promise<Ed25519Key> {
    const { key, seed } = generateKey()
    const sealed = sealSeed(this.kek, walletId, seed)
    seed.fill(0)
    const file = this.fileOf(walletId)
    const temporary = `${file}.${process.pid}.tmp`
    await fs.writeFile(temporary, JSON.stringify(sealed), { mode: 0o600 })
    await fs.rename(temporary, file)
    return key
  }

  /** The key, or undefined when no file exists. Throws when the secret cannot open it. */
  async load(walletId: string): Promise<Ed25519Key | undefined> {
    let text: string
    try {
      text = await fs.readFile(this.fileOf(walletId), "utf8")
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
      throw error
    }
    const seed = openSeed(this.kek, walletId, JSON.parse(text) as SealedSeed)
    const key = keyFromSeed(seed)
    seed.fill(0)
    return key
  }
}
