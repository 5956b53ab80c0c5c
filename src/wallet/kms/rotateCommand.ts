/**
 * `npm run wallet:kms-rotate`: re-wraps every kms data key under a new master key. Reads the database as
 * the service does (DATABASE_URL, else the embedded server under DATA_DIR), WALLET_KMS_MASTER_SECRET and
 * WALLET_KMS_KEY_ID (the current key) and WALLET_KMS_NEW_MASTER_SECRET and WALLET_KMS_NEW_KEY_ID (the new
 * one). Key files of an earlier version under DATA_DIR/kms are imported first. Stop the processes that sign
 * with kms first and start them with the new pair after.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Config, ConfigError, Effect, Layer, Option, Redacted } from "effect"
import { AppConfig, appConfig, optionalSecret, optionalString } from "../../config.js"
import { DatabaseLive } from "../../db/database.js"
import { importKeyFiles } from "../keyFileImport.js"
import { SealedKeyRepo, sealedRecords } from "../sealedKeyRepo.js"
import { DEFAULT_KMS_KEY_ID, localMasterKey, type MasterKey } from "./masterKey.js"
import { rotateMasterKey } from "./rotate.js"

/** A setting the command cannot do without: unset or blank stops it before anything is opened, naming the variable. */
const required = <A>(name: string, setting: Option.Option<A>) =>
  Option.match(setting, { onNone: () => Effect.fail(ConfigError.MissingData([name], `${name} is required`)), onSome: Effect.succeed })

/**
 * The service's configuration as read (without its checks of which backend makes new keys: none does here),
 * whose kms pair is the current key, and the new pair. Blank counts as unset, as for the service.
 */
const settings = Effect.gen(function* () {
  const { config, newSecret, newKeyId } = yield* Config.all({
    config: appConfig,
    newSecret: optionalSecret("WALLET_KMS_NEW_MASTER_SECRET"),
    newKeyId: optionalString("WALLET_KMS_NEW_KEY_ID")
  })
  const currentSecret = yield* required("WALLET_KMS_MASTER_SECRET", config.wallet.kmsMasterSecret)
  const from = localMasterKey(Redacted.value(currentSecret), Option.getOrElse(config.wallet.kmsKeyId, () => DEFAULT_KMS_KEY_ID))
  const to = localMasterKey(Redacted.value(yield* required("WALLET_KMS_NEW_MASTER_SECRET", newSecret)), yield* required("WALLET_KMS_NEW_KEY_ID", newKeyId))
  return { config, from, to }
})

const rotation = (from: MasterKey, to: MasterKey) =>
  Effect.gen(function* () {
    const config = yield* AppConfig
    const records = yield* sealedRecords
    yield* Effect.promise(() => importKeyFiles(config.dataDir, records, []))
    const result = yield* Effect.promise(() => rotateMasterKey(records, from, to))
    yield* Effect.sync(() =>
      console.log(`re-wrapped ${result.rewrapped} data keys under ${to.keyId} (${result.alreadyRotated} already were); now start with WALLET_KMS_MASTER_SECRET and WALLET_KMS_KEY_ID=${to.keyId}`)
    )
  })

settings.pipe(
  Effect.flatMap(({ config, from, to }) =>
    rotation(from, to).pipe(Effect.provide(SealedKeyRepo.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provideMerge(Layer.succeed(AppConfig, new AppConfig(config))))))
  ),
  Effect.catchAllCause((cause) =>
    Effect.sync(() => {
      const failure = Cause.squash(cause)
      if (ConfigError.isConfigError(failure)) {
        console.error(String(failure))
        process.exitCode = 2
        return
      }
      console.error(`rotation stopped: ${failure instanceof Error ? failure.message : String(failure)}`)
      process.exitCode = 1
    })
  ),
  NodeRuntime.runMain
)
