/**
 * Key backend `kms`: envelope encryption. Each wallet's seed is sealed (AES-256-GCM, wallet id as AAD)
 * under its own random data key, and only the data key is wrapped by the master key. The envelope (the
 * wrapped data key, the master key's id and the sealed seed) is a row of `sealed_keys` (store `kms`), as
 * it was a file under DATA_DIR/kms (imported once at start: keyFileImport.ts); a master-key rotation
 * rewrites only the wrapped data key (rotate.ts).
 */
import { randomBytes } from "node:crypto"
import type { SeedStore } from "../custodyBackend.js"
import { type Ed25519Key, generateKey, keyFromSeed } from "../ed25519.js"
import { openSeed, sealSeed, type SealedSeed } from "../keyCipher.js"
import type { SealedRecords } from "../sealedKeyRepo.js"
import type { MasterKey, WrappedDataKey } from "./masterKey.js"

export interface KmsEnvelope {
  readonly v: 1
  readonly walletId: string
  readonly keyId: string
  readonly wrappedDataKey: WrappedDataKey
  readonly sealedSeed: SealedSeed
}

export const openKmsStore = (records: SealedRecords, master: MasterKey): SeedStore => ({
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
    if (!(await records.insert("kms", walletId, envelope))) throw new Error(`wallet ${walletId} already has a kms envelope`)
    return key
  },
  load: async (walletId) => {
    const envelope = (await records.get("kms", walletId)) as KmsEnvelope | undefined
    if (envelope === undefined) return undefined
    if (envelope.keyId !== master.keyId) throw new Error(`wrapped under master key ${envelope.keyId}, not ${master.keyId}`)
    const dataKey = Buffer.from(await master.unwrap(envelope.wrappedDataKey, walletId))
    const seed = openSeed(dataKey, walletId, envelope.sealedSeed)
    dataKey.fill(0)
    const key = keyFromSeed(seed)
    seed.fill(0)
    return key
  }
})
