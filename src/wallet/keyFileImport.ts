/**
 * The one-time import of key files into the database (issue 36; docs/decisions/custody.md "Sealed keys in
 * PostgreSQL"): what earlier versions kept under DATA_DIR (encrypted-file's sealed seeds and KDF salt in
 * keys/, kms envelopes in kms/, in-process mpc nodes' sealed shares in mpc/node-<n>/) is copied, sealed as
 * it is, into `sealed_keys`. A folder imported whole gets an `IMPORTED` note and is not read again; its
 * files stay (still sealed) until the operator removes them. A row the database already holds for a wallet
 * wins: a file that differs from it is reported, never written over it.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { deploymentSalt, type SealedSeedRecord } from "./encryptedFileBackend.js"
import type { SealedSeed } from "./keyCipher.js"
import type { SealedRecords, SealedStore } from "./sealedKeyRepo.js"

export const IMPORTED_NOTE = "IMPORTED"
const UUID_FILE = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.json$/i

export interface FolderImport {
  readonly folder: string
  readonly store: SealedStore
  readonly imported: number
  readonly alreadyStored: number
  /** Wallets whose file differs from the row already stored (the row is kept). */
  readonly conflicting: ReadonlyArray<string>
}

/** JSON with object keys in order, so a row read back from jsonb compares equal to the file it came from. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(",")}]`
    : value !== null && typeof value === "object"
      ? `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(",")}}`
      : JSON.stringify(value)

const exists = async (file: string) => fs.access(file).then(() => true, () => false)

/** Imports one folder's `<wallet id>.json` files, each turned into its row by `toRecord`; undefined when there is nothing to import. */
const importFolder = async (
  records: SealedRecords,
  folder: string,
  store: SealedStore,
  toRecord: (file: unknown) => unknown
): Promise<FolderImport | undefined> => {
  if (!(await exists(folder)) || (await exists(path.join(folder, IMPORTED_NOTE)))) return undefined
  let imported = 0
  let alreadyStored = 0
  const conflicting: Array<string> = []
  for (const name of (await fs.readdir(folder)).sort()) {
    const walletId = UUID_FILE.exec(name)?.[1]?.toLowerCase()
    if (walletId === undefined) continue
    const record = toRecord(JSON.parse(await fs.readFile(path.join(folder, name), "utf8")) as unknown)
    if (await records.insert(store, walletId, record)) imported++
    else if (canonical(await records.get(store, walletId)) === canonical(record)) alreadyStored++
    else conflicting.push(walletId)
  }
  const note = `imported into the database (sealed_keys, store ${store}) on ${new Date().toISOString()}: ${imported} new, ${alreadyStored} already there` +
    `${conflicting.length === 0 ? "" : `, ${conflicting.length} differing from the stored row (kept: the database's)`}.\nThese files are no longer read; they stay sealed as they were.\n`
  await fs.writeFile(path.join(folder, IMPORTED_NOTE), note, { mode: 0o600 })
  return { folder, store, imported, alreadyStored, conflicting }
}

/** Imports every key folder of DATA_DIR not imported yet; `mpcNodes` are the node numbers whose folders may exist. */
export const importKeyFiles = async (dataDir: string, records: SealedRecords, mpcNodes: ReadonlyArray<number> = [1, 2, 3]): Promise<ReadonlyArray<FolderImport>> => {
  const done: Array<FolderImport> = []
  const keys = path.join(dataDir, "keys")
  const saltFile = path.join(keys, "kdf-salt")
  if ((await exists(saltFile)) && !(await exists(path.join(keys, IMPORTED_NOTE)))) {
    const fileSalt = await fs.readFile(saltFile)
    // The folder's salt becomes the deployment's when none is stored yet; each row keeps the salt it was sealed under.
    await deploymentSalt(records, fileSalt)
    const salt = fileSalt.toString("base64")
    const files = await importFolder(records, keys, "encrypted-file", (file): SealedSeedRecord => ({ ...(file as SealedSeed), salt }))
    if (files !== undefined) done.push(files)
  }
  const kms = await importFolder(records, path.join(dataDir, "kms"), "kms", (file) => file)
  if (kms !== undefined) done.push(kms)
  for (const node of mpcNodes) {
    const shares = await importFolder(records, path.join(dataDir, "mpc", `node-${node}`), `mpc-node-${node}`, (file) => file)
    if (shares !== undefined) done.push(shares)
  }
  return done
}
