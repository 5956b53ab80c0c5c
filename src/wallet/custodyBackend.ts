/**
 * What every key backend offers the key store: create a wallet's key and sign with it. Nothing here
 * returns a secret; a backend answers public keys and signatures only. A backend is told which wallet
 * a key belongs to (the wallet id) and keeps its own material (files, token objects, shares).
 */
import type { KeyBackend, WalletProvider } from "../../schemas/wallet.js"
import { type Ed25519Key, signBytes } from "./ed25519.js"

export class KeyUnavailable extends Error {
  readonly _tag = "KeyUnavailable"
  /** `frozen`: the wallet engine refused because an operator froze the transaction's scope (the message names the freeze). */
  constructor(message: string, readonly frozen: boolean = false) {
    super(message)
  }
}

export interface CustodyBackend {
  readonly backend: KeyBackend
  readonly provider: WalletProvider
  /** Creates the wallet's key; answers its 32-byte Ed25519 public key. */
  readonly create: (walletId: string) => Promise<Uint8Array>
  /** Signs the message with the wallet's key; throws KeyUnavailable with a message safe to show. */
  readonly sign: (walletId: string, message: Uint8Array) => Promise<Uint8Array>
  /** Releases sessions, handles, actors. */
  readonly close: () => Promise<void>
}

/** A store of whole Ed25519 seeds (encrypted-file, memory, kms): keys opened once stay in this process's memory. */
export interface SeedStore {
  readonly create: (walletId: string) => Promise<Ed25519Key>
  /** The key, or undefined when none is stored for the wallet. */
  readonly load: (walletId: string) => Promise<Ed25519Key | undefined>
}

export const seedBackend = (backend: KeyBackend, provider: WalletProvider, store: SeedStore): CustodyBackend => {
  // Opened keys are cached so signing does not re-run the KDF / AES for every transaction.
  const cache = new Map<string, Ed25519Key>()
  return {
    backend,
    provider,
    create: async (walletId) => {
      const key = await store.create(walletId)
      cache.set(walletId, key)
      return key.publicKey
    },
    sign: async (walletId, message) => {
      let key = cache.get(walletId)
      if (key === undefined) {
        let loaded: Ed25519Key | undefined
        try {
          loaded = await store.load(walletId)
        } catch {
          throw new KeyUnavailable(`the key of wallet ${walletId} could not be opened (backend ${backend})`)
        }
        if (loaded === undefined) throw new KeyUnavailable(`no key is held for wallet ${walletId} (backend ${backend})`)
        key = loaded
        cache.set(walletId, key)
      }
      return signBytes(key, message)
    },
    close: async () => cache.clear()
  }
}
