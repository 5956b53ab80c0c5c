/**
 * Master-key rotation of the `kms` backend: every envelope's data key is unwrapped with the current
 * master key and wrapped again with the new one. Seeds and wallets are untouched (the sealed seed is
 * copied as it is). An envelope already under the new key is skipped, so a rotation interrupted half
 * way is finished by running it again.
 */
import type { SealedRecords } from "../sealedKeyRepo.js"
import type { KmsEnvelope } from "./kmsBackend.js"
import type { MasterKey } from "./masterKey.js"

export interface RotationResult {
  readonly rewrapped: number
  readonly alreadyRotated: number
}

export const rotateMasterKey = async (records: SealedRecords, from: MasterKey, to: MasterKey): Promise<RotationResult> => {
  if (from.keyId === to.keyId) throw new Error("the new master key needs a new key id (WALLET_KMS_NEW_KEY_ID)")
  let rewrapped = 0
  let alreadyRotated = 0
  for (const row of await records.list("kms")) {
    const envelope = row.sealed as KmsEnvelope
    if (envelope.keyId === to.keyId) {
      alreadyRotated++
      continue
    }
    if (envelope.keyId !== from.keyId) throw new Error(`the envelope of wallet ${row.keyName} is wrapped under master key ${envelope.keyId}, neither the current nor the new one`)
    const dataKey = await from.unwrap(envelope.wrappedDataKey, envelope.walletId)
    const wrappedDataKey = await to.wrap(dataKey, envelope.walletId)
    dataKey.fill(0)
    await records.replace("kms", row.keyName, { ...envelope, keyId: to.keyId, wrappedDataKey })
    rewrapped++
  }
  return { rewrapped, alreadyRotated }
}
