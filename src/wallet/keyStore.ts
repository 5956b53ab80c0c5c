/**
 * Key custody: creates keys in the configured backend and signs with them. Nothing here returns a
 * secret; callers get public keys and signatures only. Signing is used by the signer actor alone.
 */
import { Effect, Option, Redacted } from "effect"
import type { KeyBackend, WalletProvider } from "../../schemas/wallet.js"
import { AppConfig } from "../config.js"
import { type Ed25519Key, signBytes } from "./ed25519.js"
import { EncryptedFileBackend } from "./encryptedFileBackend.js"
import { MemoryBackend } from "./memoryBackend.js"

export class KeyUnavailable extends Error {
  readonly _tag = "KeyUnavailable"
}

const PROVIDER_OF: Record<"encrypted-file" | "memory", WalletProvider> = {
  "encrypted-file": "local-dev",
  memory: "local-memory"
}

export class KeyStore extends Effect.Service<KeyStore>()("KeyStore", {
  scoped: Effect.gen(function* () {
    const config = yield* AppConfig
    const backendName = config.wallet.signerBackend === "memory" ? "memory" : "encrypted-file"
    const memory = new MemoryBackend()
    const encrypted = Option.isSome(config.wallet.keyEncryptionSecret)
      ? yield* Effect.promise(() =>
          EncryptedFileBackend.open(config.dataDir, Redacted.value(Option.getOrThrow(config.wallet.keyEncryptionSecret)))
        )
      : null
    // Decrypted keys stay in this process's memory so signing does not re-run AES for every transaction.
    const cache = new Map<string, Ed25519Key>()

    const backendFor = (backend: KeyBackend) => {
      if (backend === "memory") return memory
      if (backend === "encrypted-file" && encrypted !== null) return encrypted
      return null
    }

    const createKey = (walletId: string) =>
      Effect.tryPromise({
        try: async () => {
          const store = backendFor(backendName)
          if (store === null) throw new KeyUnavailable(`key backend ${backendName} is not configured`)
          const key = await store.create(walletId)
          cache.set(walletId, key)
          return key.publicKey
        },
        catch: (cause) => (cause instanceof KeyUnavailable ? cause : new KeyUnavailable("could not create the wallet key"))
      })

    const keyOf = (walletId: string, backend: KeyBackend) =>
      Effect.tryPromise({
        try: async () => {
          const cached = cache.get(walletId)
          if (cached !== undefined) return cached
          const store = backendFor(backend)
          if (store === null) throw new KeyUnavailable(`key backend ${backend} is not configured in this process`)
          const key = await store.load(walletId)
          if (key === undefined) throw new KeyUnavailable(`no key is held for wallet ${walletId} (backend ${backend})`)
          cache.set(walletId, key)
          return key
        },
        catch: (cause) => (cause instanceof KeyUnavailable ? cause : new KeyUnavailable(`the key of wallet ${walletId} could not be opened`))
      })

    /** Signs message bytes with the wallet's key. */
    const sign = (walletId: string, backend: KeyBackend, message: Uint8Array) =>
      Effect.map(keyOf(walletId, backend), (key) => signBytes(key, message))

    return {
      backend: backendName as "encrypted-file" | "memory",
      provider: PROVIDER_OF[backendName],
      createKey,
      sign
    }
  })
}) {}
