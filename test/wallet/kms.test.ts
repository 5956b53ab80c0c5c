/**
 * Backend `kms` (issue 13 item 1): envelope encryption with a data key per wallet wrapped under the
 * master key. Wallets sign and report provider `kms`; `npm run wallet:kms-rotate` re-wraps every data
 * key under a new master key without touching the sealed seeds; after it every wallet still signs, and
 * the old master key opens nothing. The envelopes are rows of the database (`sealed_keys`, store `kms`).
 */
import { spawnSync } from "node:child_process"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keyFromSeed } from "../../src/wallet/ed25519.js"
import { openSeed } from "../../src/wallet/keyCipher.js"
import type { KmsEnvelope } from "../../src/wallet/kms/kmsBackend.js"
import { localMasterKey } from "../../src/wallet/kms/masterKey.js"
import bs58 from "bs58"
import { startTestLedger } from "../support/ledger.js"
import { sealedRows } from "../support/sealedKeys.js"
import { type RunningService, startService } from "../support/service.js"
import { createFundedWallet, expectTransferSignedBy, transferSol } from "./custodyChecks.js"

const OLD = { WALLET_KMS_MASTER_SECRET: "old-master-secret-of-the-test", WALLET_KMS_KEY_ID: "test-master-1" }
const NEW = { WALLET_KMS_MASTER_SECRET: "new-master-secret-of-the-test", WALLET_KMS_KEY_ID: "test-master-2" }

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService | undefined

beforeAll(async () => {
  ledger = await startTestLedger()
})
afterAll(async () => {
  await service?.stop()
  await ledger?.close()
})

const envelopes = async (databaseUrl: string) => (await sealedRows<KmsEnvelope>(databaseUrl, "kms")).map((row) => row.sealed)

describe("kms backend", () => {
  it("signs with enveloped keys, rotates the master key, and the old master key opens nothing", async () => {
    service = await startService({ rpcUrl: ledger.rpcUrl, env: { WALLET_SIGNER_BACKEND: "kms", ...OLD } })
    const wallets = [await createFundedWallet(service.baseUrl, "kms one"), await createFundedWallet(service.baseUrl, "kms two")]
    for (const wallet of wallets) {
      expect(wallet).toMatchObject({ provider: "kms", keyProvenance: { backend: "kms", custody: "external" } })
      await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, wallet)
    }
    const { dataDir, database } = service

    // Each envelope opens (with the test's knowledge of the master secret) to the wallet's key, and holds no seed in the clear.
    const oldMaster = localMasterKey(OLD.WALLET_KMS_MASTER_SECRET, OLD.WALLET_KMS_KEY_ID)
    const before = await envelopes(database.url)
    expect(before.map((e) => e.walletId).sort()).toEqual(wallets.map((w) => w.id).sort())
    for (const envelope of before) {
      expect(envelope.keyId).toBe(OLD.WALLET_KMS_KEY_ID)
      const dataKey = Buffer.from(await oldMaster.unwrap(envelope.wrappedDataKey, envelope.walletId))
      const seed = openSeed(dataKey, envelope.walletId, envelope.sealedSeed)
      expect(bs58.encode(keyFromSeed(seed).publicKey)).toBe(wallets.find((w) => w.id === envelope.walletId)!.publicKey)
      const text = JSON.stringify(envelope)
      for (const encoded of [Buffer.from(seed).toString("hex"), Buffer.from(seed).toString("base64").replace(/=+$/, ""), bs58.encode(seed), Buffer.from(dataKey).toString("base64").replace(/=+$/, "")]) {
        expect(text.includes(encoded)).toBe(false)
      }
    }
    await service.stop({ keepData: true })
    service = undefined

    const rotation = spawnSync(process.execPath, ["--import", "tsx", "src/wallet/kms/rotateCommand.ts"], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: database.url, ...OLD, WALLET_KMS_NEW_MASTER_SECRET: NEW.WALLET_KMS_MASTER_SECRET, WALLET_KMS_NEW_KEY_ID: NEW.WALLET_KMS_KEY_ID },
      encoding: "utf8"
    })
    expect(rotation.status, rotation.stderr).toBe(0)
    expect(rotation.stdout).toContain("re-wrapped 2 data keys under test-master-2")
    expect(rotation.stdout + rotation.stderr).not.toContain(OLD.WALLET_KMS_MASTER_SECRET)

    const after = await envelopes(database.url)
    for (const envelope of after) {
      expect(envelope.keyId).toBe(NEW.WALLET_KMS_KEY_ID)
      // The seed was not touched: only the wrapped data key changed.
      expect(envelope.sealedSeed).toEqual(before.find((e) => e.walletId === envelope.walletId)!.sealedSeed)
      await expect(oldMaster.unwrap(envelope.wrappedDataKey, envelope.walletId)).rejects.toThrow()
    }

    service = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir, database }, env: { WALLET_SIGNER_BACKEND: "kms", ...NEW } })
    for (const wallet of wallets) await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, wallet)
    await service.stop({ keepData: true })

    // A service still configured with the old master key cannot sign: it fails at `sign` and sends nothing.
    service = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir, database }, env: { WALLET_SIGNER_BACKEND: "kms", ...OLD } })
    const refused = await transferSol(service.baseUrl, wallets[0]!.id, wallets[1]!.publicKey, 1_000_000)
    expect(refused.body.data).toMatchObject({ status: "failed", failedAt: "sign" })
    expect(refused.body.data.error).toContain("could not be opened")
  }, 300_000)
})
