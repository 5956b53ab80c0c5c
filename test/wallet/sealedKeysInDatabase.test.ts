/**
 * Sealed keys in PostgreSQL (issue 36 item 2). Wallets are made under encrypted-file, kms and mpc (three
 * in-process nodes); their sealed material is rows of `sealed_keys` and no DATA_DIR holds a key folder.
 * - Import: the rows are written out as an earlier version kept them (DATA_DIR/keys with its kdf-salt,
 *   DATA_DIR/kms, DATA_DIR/mpc/node-<n>) and removed from the database; a service started on that DATA_DIR
 *   imports them once (an IMPORTED note per folder), every wallet signs a transfer that lands, and a later
 *   start does not read the files again. A file that differs from a stored row never replaces it.
 * - Two services on different DATA_DIRs, sharing only the database and the secrets, sign for the same
 *   wallets at the same time.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { SealedSeedRecord } from "../../src/wallet/encryptedFileBackend.js"
import { IMPORTED_NOTE, importKeyFiles } from "../../src/wallet/keyFileImport.js"
import { SealedKeyRepo, sealedRecords, type SealedStore } from "../../src/wallet/sealedKeyRepo.js"
import { createTestDatabase, type TestDatabase } from "../support/database.js"
import { startTestLedger } from "../support/ledger.js"
import { sealedRows } from "../support/sealedKeys.js"
import { type RunningService, startService } from "../support/service.js"
import { createFundedWallet, expectTransferSignedBy } from "./custodyChecks.js"

const SECRETS = {
  WALLET_KEY_ENCRYPTION_SECRET: "sealed-keys-test-secret",
  WALLET_KMS_MASTER_SECRET: "sealed-keys-test-kms-master",
  WALLET_KMS_KEY_ID: "sealed-keys-master-1",
  WALLET_MPC_NODE_SECRETS: "sealed-node-one,sealed-node-two,sealed-node-three"
}
const STORES: ReadonlyArray<SealedStore> = ["encrypted-file", "kms", "mpc-node-1", "mpc-node-2", "mpc-node-3"]

const tempDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), prefix))
const dirs: Array<string> = []
const freshDir = (prefix: string) => {
  const dir = tempDir(prefix)
  dirs.push(dir)
  return dir
}

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let database: TestDatabase
const running: Array<RunningService> = []
const wallets: Array<{ id: string; publicKey: string; backend: string }> = []

const start = async (dataDir: string, backend = "encrypted-file") => {
  const service = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir, database }, env: { ...SECRETS, WALLET_SIGNER_BACKEND: backend } })
  running.push(service)
  return service
}
const stop = async (service: RunningService) => {
  running.splice(running.indexOf(service), 1)
  await service.stop({ keepData: true })
}

beforeAll(async () => {
  ledger = await startTestLedger()
  database = await createTestDatabase()
  const dataDir = freshDir("custody-sealed-make-")
  for (const backend of ["encrypted-file", "kms", "mpc"]) {
    const service = await start(dataDir, backend)
    const wallet = await createFundedWallet(service.baseUrl, `${backend} wallet`, 2_000_000_000)
    wallets.push({ ...wallet, backend })
    await stop(service)
  }
  expect(fs.readdirSync(dataDir).filter((name) => ["keys", "kms", "mpc"].includes(name))).toEqual([])
}, 240_000)

afterAll(async () => {
  for (const service of [...running]) await service.stop({ keepData: true })
  await database?.drop()
  await ledger?.close()
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true })
})

/** Every store's rows, by store. */
const storedRows = async () => Object.fromEntries(await Promise.all(STORES.map(async (store) => [store, await sealedRows<Record<string, unknown>>(database.url, store)] as const)))

/** Writes the rows as an earlier version kept them under DATA_DIR, and empties the table, as that version's database was. */
const asLegacyFiles = async (dataDir: string) => {
  const rows = await storedRows()
  const write = (folder: string, name: string, content: unknown) => {
    fs.mkdirSync(path.join(dataDir, folder), { recursive: true })
    fs.writeFileSync(path.join(dataDir, folder, `${name}.json`), JSON.stringify(content))
  }
  for (const row of rows["encrypted-file"]!) {
    if (row.keyName === "kdf-salt") continue
    const { salt, ...file } = row.sealed as unknown as SealedSeedRecord
    fs.mkdirSync(path.join(dataDir, "keys"), { recursive: true })
    fs.writeFileSync(path.join(dataDir, "keys", "kdf-salt"), Buffer.from(salt, "base64"))
    write("keys", row.keyName, file)
  }
  for (const row of rows.kms!) write("kms", row.keyName, row.sealed)
  for (const node of [1, 2, 3]) for (const row of rows[`mpc-node-${node}`]!) write(path.join("mpc", `node-${node}`), row.keyName, row.sealed)
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  await client.query("DELETE FROM sealed_keys")
  await client.end()
  return rows
}

describe("sealed keys in the database", () => {
  it("imports an earlier version's key files once at start; every wallet then signs a transfer that lands", async () => {
    const legacyDir = freshDir("custody-sealed-legacy-")
    const before = await asLegacyFiles(legacyDir)
    expect(before["encrypted-file"]!.length).toBe(2) // the wallet's row and the deployment's kdf-salt

    const service = await start(legacyDir)
    const after = await storedRows()
    for (const store of STORES) {
      expect(after[store]!.map((row) => row.keyName).sort(), store).toEqual(before[store]!.map((row) => row.keyName).sort())
    }
    for (const folder of ["keys", "kms", "mpc/node-1", "mpc/node-2", "mpc/node-3"]) {
      expect(fs.readFileSync(path.join(legacyDir, folder, IMPORTED_NOTE), "utf8")).toMatch(/^imported into the database \(sealed_keys, store .*\) on .*: 1 new, 0 already there/)
    }
    for (const wallet of wallets) await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, wallet)
    await stop(service)

    // Imported once: a later start reads no file (a file spoiled now changes nothing).
    const spoiled = path.join(legacyDir, "keys", `${wallets[0]!.id}.json`)
    fs.writeFileSync(spoiled, "{\"not\": \"a sealed seed\"}")
    const again = await start(legacyDir)
    await expectTransferSignedBy(again.baseUrl, ledger.rpcUrl, wallets[0]!)
    await stop(again)
  }, 240_000)

  it("never replaces a stored row with a differing file", async () => {
    const dir = freshDir("custody-sealed-conflict-")
    const service = await start(dir)
    const stored = (await sealedRows<SealedSeedRecord>(database.url, "encrypted-file")).find((row) => row.keyName === wallets[0]!.id)!
    const { salt, ...file } = stored.sealed
    fs.mkdirSync(path.join(dir, "keys"))
    fs.writeFileSync(path.join(dir, "keys", "kdf-salt"), Buffer.from(salt, "base64"))
    fs.writeFileSync(path.join(dir, "keys", `${wallets[0]!.id}.json`), JSON.stringify({ ...file, ciphertext: Buffer.alloc(32, 7).toString("base64") }))
    const result = await service.runtime.runPromise(
      Effect.flatMap(sealedRecords, (records) => Effect.promise(() => importKeyFiles(dir, records, []))).pipe(Effect.provide(SealedKeyRepo.Default))
    )
    expect(result).toEqual([expect.objectContaining({ store: "encrypted-file", imported: 0, alreadyStored: 0, conflicting: [wallets[0]!.id] })])
    expect((await sealedRows<SealedSeedRecord>(database.url, "encrypted-file")).find((row) => row.keyName === wallets[0]!.id)!.sealed).toEqual(stored.sealed)
    await expectTransferSignedBy(service.baseUrl, ledger.rpcUrl, wallets[0]!)
    await stop(service)
  }, 120_000)

  it("two services on different DATA_DIRs, sharing only the database and the secrets, sign for the same wallets", async () => {
    const [one, two] = [await start(freshDir("custody-sealed-one-")), await start(freshDir("custody-sealed-two-"))]
    await Promise.all(wallets.flatMap((wallet) => [expectTransferSignedBy(one.baseUrl, ledger.rpcUrl, wallet), expectTransferSignedBy(two.baseUrl, ledger.rpcUrl, wallet)]))
    for (const service of [one, two]) expect(fs.readdirSync(service.dataDir).filter((name) => ["keys", "kms", "mpc"].includes(name))).toEqual([])
    await stop(one)
    await stop(two)
  }, 180_000)
})
