/**
 * Opens every key backend whose configuration is present (not only the default one), so a wallet
 * keeps signing with the backend recorded on its row after WALLET_SIGNER_BACKEND changes. Their sealed
 * material lives in the database (`records`); the secrets that open it come from the configuration only.
 */
import { Data, Effect, Option, Redacted, type Scope } from "effect"
import type { KeyBackend } from "../../schemas/wallet.js"
import type { AppConfigShape } from "../config.js"
import { type CustodyBackend, seedBackend } from "./custodyBackend.js"
import { EncryptedFileBackend } from "./encryptedFileBackend.js"
import { openHsmBackend } from "./hsm/hsmBackend.js"
import { openKmsStore } from "./kms/kmsBackend.js"
import { DEFAULT_KMS_KEY_ID, localMasterKey } from "./kms/masterKey.js"
import { MemoryBackend } from "./memoryBackend.js"
import { mpcBackend } from "./mpc/mpcBackend.js"
import type { MpcCluster } from "./mpc/mpcCluster.js"
import type { SealedRecords } from "./sealedKeyRepo.js"

/** Start-up fails, saying why, when a configured token cannot be opened (wrong PIN, no such token). */
export class HsmUnavailable extends Data.TaggedError("HsmUnavailable")<{ readonly message: string }> {}

export type OpenBackends = ReadonlyMap<KeyBackend, CustodyBackend>

const opened = (backend: CustodyBackend) =>
  Effect.acquireRelease(Effect.succeed(backend), (b) => Effect.promise(() => b.close()))

export const openCustodyBackends = (config: AppConfigShape, mpc: MpcCluster, records: SealedRecords): Effect.Effect<OpenBackends, HsmUnavailable, Scope.Scope> =>
  Effect.gen(function* () {
    const backends = new Map<KeyBackend, CustodyBackend>()
    backends.set("memory", yield* opened(seedBackend("memory", "local-memory", new MemoryBackend())))
    if (Option.isSome(config.wallet.keyEncryptionSecret)) {
      const secret = Redacted.value(config.wallet.keyEncryptionSecret.value)
      const store = yield* Effect.promise(() => EncryptedFileBackend.open(records, secret))
      backends.set("encrypted-file", yield* opened(seedBackend("encrypted-file", "local-dev", store)))
    }
    if (Option.isSome(config.wallet.kmsMasterSecret)) {
      const master = localMasterKey(Redacted.value(config.wallet.kmsMasterSecret.value), Option.getOrElse(config.wallet.kmsKeyId, () => DEFAULT_KMS_KEY_ID))
      backends.set("kms", yield* opened(seedBackend("kms", "kms", openKmsStore(records, master))))
    }
    if (Option.isSome(config.wallet.hsmPin) && Option.isSome(config.wallet.hsmModule)) {
      const options = { modulePath: config.wallet.hsmModule.value, pin: Redacted.value(config.wallet.hsmPin.value), slot: Option.getOrElse(config.wallet.hsmSlot, () => "") }
      backends.set("hsm", yield* opened(yield* Effect.try({ try: () => openHsmBackend(options, records), catch: (e) => new HsmUnavailable({ message: `the HSM token could not be opened: ${e instanceof Error ? e.message : String(e)}` }) })))
    }
    if (mpc.configured) backends.set("mpc", mpcBackend(mpc, records))
    return backends
  })
