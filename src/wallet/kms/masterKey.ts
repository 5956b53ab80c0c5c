/**
 * The master key of the `kms` backend: it only wraps and unwraps per-wallet data keys, never sees a
 * wallet's seed. `LocalMasterKey` derives an AES-256-GCM key from WALLET_KMS_MASTER_SECRET; a cloud KMS
 * (AWS KMS Encrypt/Decrypt with an encryption context, GCP KMS with additional authenticated data)
 * implements the same interface without the master key ever entering this process.
 */
import { scryptSync } from "node:crypto"
import { openSeed, sealSeed, type SealedSeed } from "../keyCipher.js"

export type WrappedDataKey = SealedSeed

export interface MasterKey {
  /** Names the master key in every envelope, so a rotation knows what wraps what. */
  readonly keyId: string
  /** Wraps a data key; `context` is bound to the ciphertext (the wallet id), as a KMS encryption context. */
  readonly wrap: (dataKey: Uint8Array, context: string) => Promise<WrappedDataKey>
  /** Throws when the key or the context does not match. */
  readonly unwrap: (wrapped: WrappedDataKey, context: string) => Promise<Uint8Array>
}

const SCRYPT = { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 } as const

export const DEFAULT_KMS_KEY_ID = "local-master-1"

/** A master key derived (scrypt) from a secret; the key id is the salt, so two ids never share a key. */
export const localMasterKey = (secret: string, keyId: string): MasterKey => {
  const key = scryptSync(secret, `agent-custody/kms/${keyId}`, 32, SCRYPT)
  const aad = (context: string) => `kms:${keyId}:${context}`
  return {
    keyId,
    wrap: async (dataKey, context) => sealSeed(key, aad(context), dataKey),
    unwrap: async (wrapped, context) => openSeed(key, aad(context), wrapped)
  }
}
