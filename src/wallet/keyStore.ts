/**
 * Key custody: creates keys in the configured default backend and signs with the backend recorded for
 * each wallet. Nothing here returns a secret; callers get public keys and signatures only. Signing is
 * used by the signer actor alone.
 */
import { Effect, Option, Redacted } from "effect"
import type { KeyBackend, WalletProvider } from "../../schemas/wallet.js"
import { AppConfig } from "../config.js"
import { KeyUnavailable } from "./custodyBackend.js"
import { openCustodyBackends } from "./custodyBackends.js"
import { walletEngineClient } from "./engine/engineClient.js"
import { importKeyFiles } from "./keyFileImport.js"
import { MpcCluster } from "./mpc/mpcCluster.js"
import { SealedKeyRepo, sealedRecords } from "./sealedKeyRepo.js"

export { KeyUnavailable } from "./custodyBackend.js"

/** What the signer asks for: the transaction is named so a wallet engine in another process can check it. */
export interface KeySignRequest {
  readonly txId: string
  readonly walletId: string
  readonly backend: KeyBackend
  readonly message: Uint8Array
}

/** A signature and when it was made (inside the signing's freeze lock: docs/decisions/freeze.md). */
export interface KeySignature {
  readonly signature: Uint8Array
  readonly signedAt: Date
}

export interface CreatedKey {
  readonly publicKey: Uint8Array
  readonly backend: KeyBackend
  readonly provider: WalletProvider
}

const unavailable = (cause: unknown, fallback: string) =>
  cause instanceof KeyUnavailable ? cause : new KeyUnavailable(fallback)

export class KeyStore extends Effect.Service<KeyStore>()("KeyStore", {
  dependencies: [SealedKeyRepo.Default, MpcCluster.Default],
  scoped: Effect.gen(function* () {
    const config = yield* AppConfig
    const mpc = yield* MpcCluster
    if (Option.isSome(config.walletEngine.url) && Option.isSome(config.walletEngine.internalToken)) {
      // Split deployment: this process holds no key; the wallet engine creates and signs.
      const engine = walletEngineClient(config.walletEngine.url.value, Redacted.value(config.walletEngine.internalToken.value))
      return {
        /** The engine signs (and checks freezes under its own lock): holding a lock here across its call could wait on itself. */
        remote: true,
        createKey: (walletId: string) =>
          Effect.tryPromise({ try: () => engine.createKey(walletId), catch: (cause) => unavailable(cause, "could not create the wallet key") }),
        sign: (request: KeySignRequest) =>
          Effect.tryPromise({
            try: (): Promise<KeySignature> => engine.sign(request.txId, request.walletId, request.message),
            catch: (cause) => unavailable(cause, `the key of wallet ${request.walletId} could not sign`)
          })
      }
    }
    const records = yield* sealedRecords
    // Key files of earlier versions under DATA_DIR go into the database once, before any key is read.
    const imported = yield* Effect.promise(() => importKeyFiles(config.dataDir, records))
    for (const folder of imported) {
      yield* Effect.logInfo(`imported ${folder.imported} sealed keys from ${folder.folder} into the database (${folder.alreadyStored} were there already)`)
      if (folder.conflicting.length > 0) {
        yield* Effect.logWarning(`${folder.conflicting.length} key files under ${folder.folder} differ from the database's rows, which were kept: ${folder.conflicting.join(", ")}`)
      }
    }
    const backends = yield* openCustodyBackends(config, mpc, records)
    const defaultBackend = config.wallet.signerBackend

    const backendOf = (backend: KeyBackend) => {
      const found = backends.get(backend)
      if (found === undefined) throw new KeyUnavailable(`key backend ${backend} is not configured in this process`)
      return found
    }

    const createKey = (walletId: string) =>
      Effect.tryPromise({
        try: async (): Promise<CreatedKey> => {
          const backend = backendOf(defaultBackend)
          return { publicKey: await backend.create(walletId), backend: backend.backend, provider: backend.provider }
        },
        catch: (cause) => unavailable(cause, "could not create the wallet key")
      })

    /** Signs message bytes with the wallet's key, in the backend recorded for the wallet. */
    const sign = (request: KeySignRequest) =>
      Effect.tryPromise({
        try: async (): Promise<KeySignature> => ({ signature: await backendOf(request.backend).sign(request.walletId, request.message), signedAt: new Date() }),
        catch: (cause) => unavailable(cause, `the key of wallet ${request.walletId} could not sign`)
      })

    return { remote: false, createKey, sign }
  })
}) {}
