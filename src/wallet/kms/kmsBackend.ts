/**
 * Key backend `kms`: envelope encryption. Each wallet's seed is sealed (AES-256-GCM, wallet id as AAD)
 * under its own random data key, and only the data key is wrapped by the master key. One file per
 * wallet under DATA_DIR/kms holds the wrapped data key, the master key's id and the sealed seed; a
 * master-key rotation rewrites only the wrapped data key (rotate.ts).
 */
import * as fs from "node:fs/promises"
import { randomBytes } from "node:crypto"
import * as path from "node:path"
import type { SeedStore } from "../custodyBackend.js"
import { type Ed25519Key, generateKey, keyFromSeed } from "../ed25519.js"
import { openSeed, sealSeed, type SealedSeed } from "../keyCipher.js"
import type { MasterKey, WrappedDataKey } from "./masterKey.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export interface KmsEnvelope {
  readonly v: 1
  readonly walletId: string
  readonly keyId: string
  readonly wrappedDataKey: WrappedDataKey
  readonly sealedSeed: SealedSeed
}

export const kmsDirectory = (dataDir: string) => path.join(dataDir, "kms")

export const envelopeFile = (dataDir: string, walletId: string) => {
  if (!UUID.test(walletId)) throw new Error("wallet id must be a UUID")
  return path.join(kmsDirectory(dataDir), `${walletId}.json`)
}

/** Writes through a temporary file and a rename, so a crash never leaves half an envelope. */
export const writeEnvelope = async (dataDir: string, envelope: KmsEnvelope) => {
  const file = envelopeFile(dataDir, envelope.walletId)
  const temporary = `${file}.${process.pid}.tmp`
  await fs.writeFile(temporary, JSON.stringify(envelope), { mode: 0o600 })
  await fs.rename(temporary, file)
}

export const openKmsStore = async (dataDir: string, master: MasterKey): Promise<SeedStore> => {
  await fs.mkdir(kmsDirectory(dataDir), { recursive: true, mode: 0o700 })
  return {
    create: async (walletId): Promise<Ed25519Key> => {
      const { key, seed } = generateKey()
      const dataKey = randomBytes(32)
      const envelope: KmsEnvelope = {
        v: 1,
        walletId,
        keyId: master.keyId,
        wrappedDataKey: await master.wrap(dataKey, walletId),
        sealedSeed: sealSeed(dataKey, walletId, seed)
      }
      dataKey.fill(0)
      seed.fill(0)
      await writeEnvelope(dataDir, envelope)
      return key
    },
    load: async (walletId) => {
      let text: string
      try {
        text = await fs.readFile(envelopeFile(dataDir, walletId), "utf8")
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined
        throw error
      }
      const envelope = JSON.parse(text) as KmsEnvelope
      if (envelope.keyId !== master.keyId) throw new Error(`wrapped under master key ${envelope.keyId}, not ${master.keyId}`)
      const dataKey = Buffer.from(await master.unwrap(envelope.wrappedDataKey, walletId))
      const seed = openSeed(dataKey, walletId, envelope.sealedSeed)
      dataKey.fill(0)
      const key = keyFromSeed(seed)
      seed.fill(0)
      return key
    }
  }
}
