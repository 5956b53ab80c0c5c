/**
 * `npm run wallet:kms-rotate`: re-wraps every kms data key under a new master key. Reads DATA_DIR,
 * WALLET_KMS_MASTER_SECRET and WALLET_KMS_KEY_ID (the current key) and WALLET_KMS_NEW_MASTER_SECRET and
 * WALLET_KMS_NEW_KEY_ID (the new one). Stop the wallet engine first and start it with the new pair after.
 */
import { localMasterKey, DEFAULT_KMS_KEY_ID } from "./masterKey.js"
import { rotateMasterKey } from "./rotate.js"

const required = (name: string) => {
  const value = (process.env[name] ?? "").trim()
  if (value === "") {
    console.error(`${name} is required`)
    process.exit(2)
  }
  return value
}

const dataDir = process.env.DATA_DIR ?? ".data"
const from = localMasterKey(required("WALLET_KMS_MASTER_SECRET"), (process.env.WALLET_KMS_KEY_ID ?? "").trim() || DEFAULT_KMS_KEY_ID)
const to = localMasterKey(required("WALLET_KMS_NEW_MASTER_SECRET"), required("WALLET_KMS_NEW_KEY_ID"))

rotateMasterKey(dataDir, from, to).then(
  (result) => console.log(`re-wrapped ${result.rewrapped} data keys under ${to.keyId} (${result.alreadyRotated} already were); now start with WALLET_KMS_MASTER_SECRET and WALLET_KMS_KEY_ID=${to.keyId}`),
  (error: Error) => {
    console.error(`rotation stopped: ${error.message}`)
    process.exitCode = 1
  }
)
