/**
 * `npm run wallet:kms-rotate`: re-wraps every kms data key under a new master key. Reads the database as
 * the service does (DATABASE_URL, else the embedded server under DATA_DIR), WALLET_KMS_MASTER_SECRET and
 * WALLET_KMS_KEY_ID (the current key) and WALLET_KMS_NEW_MASTER_SECRET and WALLET_KMS_NEW_KEY_ID (the new
 * one). Key files of an earlier version under DATA_DIR/kms are imported first. Stop the processes that sign
 * with kms first and start them with the new pair after.
 */
import { NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Layer } from "effect"
import { AppConfig, appConfig } from "../../config.js"
import { DatabaseLive } from "../../db/database.js"
import { importKeyFiles } from "../keyFileImport.js"
import { SealedKeyRepo, sealedRecords } from "../sealedKeyRepo.js"
import { DEFAULT_KMS_KEY_ID, localMasterKey } from "./masterKey.js"
import { rotateMasterKey } from "./rotate.js"

const required = (name: string) => {
  const value = (process.env[name] ?? "").trim()
  if (value === "") {
    console.error(`${name} is required`)
    process.exit(2)
  }
  return value
}

const from = localMasterKey(required("WALLET_KMS_MASTER_SECRET"), (process.env.WALLET_KMS_KEY_ID ?? "").trim() || DEFAULT_KMS_KEY_ID)
const to = localMasterKey(required("WALLET_KMS_NEW_MASTER_SECRET"), required("WALLET_KMS_NEW_KEY_ID"))

const rotation = Effect.gen(function* () {
  const config = yield* AppConfig
  const records = yield* sealedRecords
  yield* Effect.promise(() => importKeyFiles(config.dataDir, records, []))
  const result = yield* Effect.promise(() => rotateMasterKey(records, from, to))
  yield* Effect.sync(() =>
    console.log(`re-wrapped ${result.rewrapped} data keys under ${to.keyId} (${result.alreadyRotated} already were); now start with WALLET_KMS_MASTER_SECRET and WALLET_KMS_KEY_ID=${to.keyId}`)
  )
})

/** The configuration as read, without the service's checks of which backend makes new keys (none does here). */
const ConfigAsRead = Layer.effect(AppConfig, Effect.map(appConfig, (config) => new AppConfig(config)))

rotation.pipe(
  Effect.provide(SealedKeyRepo.Default.pipe(Layer.provideMerge(DatabaseLive), Layer.provideMerge(ConfigAsRead))),
  Effect.catchAllCause((cause) =>
    Effect.sync(() => {
      const failure = Cause.squash(cause)
      console.error(`rotation stopped: ${failure instanceof Error ? failure.message : String(failure)}`)
      process.exitCode = 1
    })
  ),
  NodeRuntime.runMain
)
