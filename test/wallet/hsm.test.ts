/**
 * Backend `hsm` (issue 13 item 2) on a real PKCS#11 token (Debian's SoftHSM through pkcs11js). The
 * token is the one development mode initialises under DATA_DIR when only WALLET_HSM_PIN is given. A
 * wallet's key is generated in the token: transfers confirm and verify under its public key, the
 * private key object refuses to reveal CKA_VALUE (sensitive, non-extractable), and the key survives
 * a restart of the service.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import pkcs11js from "pkcs11js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { devEnvironment } from "../../src/devCredentials.js"
import { Pkcs11Token } from "../../src/wallet/hsm/pkcs11Token.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { startTestLedger } from "../support/ledger.js"
import { type RunningService, startService } from "../support/service.js"
import { createFundedWallet, expectTransferSignedBy } from "./custodyChecks.js"

const PIN = "735211"
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-hsm-"))
let ledger: Awaited<ReturnType<typeof startTestLedger>>
let database: TestDatabase
let service: RunningService | undefined
let hsmEnv: Record<string, string>

beforeAll(async () => {
  ledger = await startTestLedger()
  database = await createTestDatabase()
})
afterAll(async () => {
  await service?.stop()
  await ledger?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

describe("hsm backend", () => {
  it("development mode initialises a SoftHSM token under DATA_DIR once, and says so", () => {
    const env = { DATA_DIR: dataDir, WALLET_SIGNER_BACKEND: "hsm", WALLET_HSM_PIN: PIN }
    const first = devEnvironment(env)
    expect(first.notices.join("\n")).toMatch(/initialised the development SoftHSM token "agent-custody-dev" under .*softhsm/)
    expect(first.overrides).toMatchObject({ WALLET_HSM_MODULE: "/usr/lib/softhsm/libsofthsm2.so", WALLET_HSM_SLOT: "agent-custody-dev" })
    expect(fs.existsSync(path.join(dataDir, "softhsm", "tokens"))).toBe(true)
    const second = devEnvironment(env)
    expect(second.notices.join("\n")).toMatch(/using the development SoftHSM token/)
    hsmEnv = { WALLET_SIGNER_BACKEND: "hsm", WALLET_HSM_PIN: PIN, WALLET_HSM_MODULE: first.overrides.WALLET_HSM_MODULE!, WALLET_HSM_SLOT: first.overrides.WALLET_HSM_SLOT! }
  })

  it("signs with a non-extractable token key that survives a restart", async () => {
    service = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir, database }, env: hsmEnv })
    const wallet = await createFundedWallet(service.baseUrl, "hsm wallet")
    expect(wallet).toMatchObject({ provider: "hsm", keyProvenance: { backend: "hsm", custody: "external" } })
    await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, wallet)
    expect(fs.existsSync(path.join(dataDir, "keys", `${wallet.id}.json`))).toBe(false)
    await service.stop({ keepData: true })
    service = undefined

    // The token itself: the private key exists, is sensitive and non-extractable, and CKA_VALUE is refused.
    const token = Pkcs11Token.open({ modulePath: hsmEnv.WALLET_HSM_MODULE!, pin: PIN, slot: hsmEnv.WALLET_HSM_SLOT! })
    try {
      const [extractable, sensitive] = token.attributes(wallet.id, [pkcs11js.CKA_EXTRACTABLE, pkcs11js.CKA_SENSITIVE])
      expect((extractable!.value as Buffer)[0]).toBe(0)
      expect((sensitive!.value as Buffer)[0]).toBe(1)
      expect(() => token.attributes(wallet.id, [pkcs11js.CKA_VALUE])).toThrow(/CKR_ATTRIBUTE_SENSITIVE/)
    } finally {
      token.close()
    }
    // A wrong PIN opens nothing.
    expect(() => Pkcs11Token.open({ modulePath: hsmEnv.WALLET_HSM_MODULE!, pin: "000000", slot: hsmEnv.WALLET_HSM_SLOT! })).toThrow(/CKR_PIN_INCORRECT/)

    service = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir, database }, env: hsmEnv })
    await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, wallet)
  }, 240_000)
})
