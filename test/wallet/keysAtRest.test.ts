/**
 * Keys at rest (issue #2, issue 36): after wallets are created over HTTP and one signs a transfer, no sealed
 * key row, no database row (every table, read through information_schema), no file under DATA_DIR and no API
 * response holds a secret seed or secret key in any common encoding. The test knows the seeds only because it
 * holds the key-encryption secret and opens the sealed rows (`sealed_keys`) itself, which also proves they
 * are the real keys. DATA_DIR holds no key folder: the sealed keys are in the database.
 */
import { SqlClient } from "@effect/sql"
import bs58 from "bs58"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { keyFromSeed } from "../../src/wallet/ed25519.js"
import type { SealedSeedRecord } from "../../src/wallet/encryptedFileBackend.js"
import { deriveKeyEncryptionKey, openSeed } from "../../src/wallet/keyCipher.js"
import { sealedRows } from "../support/sealedKeys.js"
import { startTestLedger } from "../support/ledger.js"
import type { TransactionEncoded } from "../../schemas/transaction.js"
import type { Wallet } from "../../schemas/wallet.js"
import { api, type RunningService, startService } from "../support/service.js"

const SECRET = "test-key-encryption-secret" // what startService configures

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService
const responses: Array<string> = []
const wallets: Array<{ id: string; publicKey: string }> = []

const call = async <D = unknown>(method: string, urlPath: string, body?: unknown) => {
  const reply = await api<D>(service.baseUrl, method, urlPath, body)
  responses.push(JSON.stringify(reply.body))
  return reply
}

beforeAll(async () => {
  ledger = await startTestLedger()
  service = await startService({ rpcUrl: ledger.rpcUrl })
  for (const body of [{ label: "plain" }, { label: "funded", autoFund: true, fundLamports: 1_000_000_000 }, {}]) {
    const created = await call<typeof Wallet.Encoded>("POST", "/api/v1/wallets", body)
    expect(created.status).toBe(201)
    wallets.push({ id: created.body.data.id, publicKey: created.body.data.publicKey })
  }
  for (const wallet of wallets) {
    await call("GET", `/api/v1/wallets/${wallet.id}`)
    await call("GET", `/api/v1/wallets/${wallet.id}/balance`)
  }
  await call("GET", "/api/v1/wallets?limit=100")
  // Signing opens a key: its record, proof and audit trail are scanned too.
  const sent = await call<TransactionEncoded>("POST", "/api/v1/transactions?waitMs=30000", {
    walletId: wallets[1]!.id,
    type: "transfer_sol",
    protocol: "system-program",
    intent: { destination: wallets[0]!.publicKey, lamports: 1_000_000 }
  })
  expect(sent.body.data.status).toBe("confirmed")
  await call("GET", `/api/v1/transactions/${sent.body.data.id}`)
  await call("GET", `/api/v1/transactions/${sent.body.data.id}/proof`)
  await call("GET", `/api/v1/wallets/${wallets[1]!.id}/transactions`)
  const audit = await call("GET", "/api/v1/audit/events?limit=100")
  expect(audit.status).toBe(200)
  for (const row of await sealedRows<SealedSeedRecord>(service.database.url, "encrypted-file")) sealed.set(row.keyName, row.sealed)
})

afterAll(async () => {
  await service?.stop()
  await ledger?.close()
})

/** The rows of store encrypted-file: each wallet's sealed seed with its KDF salt. */
const sealed = new Map<string, SealedSeedRecord>()
const sealedOf = (walletId: string) => {
  const record = sealed.get(walletId)
  if (record === undefined) throw new Error(`no sealed key row for wallet ${walletId}`)
  return record
}
const salt = () => Buffer.from(sealedOf(wallets[0]!.id).salt, "base64")
// scrypt is deliberately slow: derive the key-encryption key once.
let cachedKek: Buffer | undefined
const kek = () => (cachedKek ??= deriveKeyEncryptionKey(SECRET, salt()))

/** The seed (opened with the test's secret) and the 64-byte secret key (seed + public key). */
const secretsOf = (walletId: string) => {
  const seed = openSeed(kek(), walletId, sealedOf(walletId))
  const publicKey = keyFromSeed(seed).publicKey
  return { seed, publicKey, secretKey: new Uint8Array([...seed, ...publicKey]) }
}

/** Every text form a leaked secret would likely take. */
const encodings = (bytes: Uint8Array): Array<string> => {
  const buffer = Buffer.from(bytes)
  const numbers = Array.from(bytes)
  return [
    buffer.toString("hex"),
    buffer.toString("hex").toUpperCase(),
    buffer.toString("base64").replace(/=+$/, ""),
    buffer.toString("base64url"),
    bs58.encode(bytes),
    numbers.join(","),
    numbers.join(", ")
  ]
}

let cachedNeedles: Array<{ walletId: string; raw: Buffer; encoded: Array<string> }> | undefined
const needles = () =>
  (cachedNeedles ??= wallets.flatMap((wallet) => {
    const { seed, secretKey } = secretsOf(wallet.id)
    return [seed, secretKey].map((secret) => ({ walletId: wallet.id, raw: Buffer.from(secret), encoded: encodings(secret) }))
  }))

const expectNoSecret = (haystack: string | Buffer, where: string) => {
  const text = haystack.toString("latin1")
  for (const needle of needles()) {
    if (Buffer.isBuffer(haystack)) expect(haystack.indexOf(needle.raw), `raw secret bytes in ${where}`).toBe(-1)
    for (const encoded of needle.encoded) {
      expect(text.includes(encoded), `an encoded secret of wallet ${needle.walletId} in ${where}`).toBe(false)
    }
  }
}

const filesUnder = (directory: string): Array<string> =>
  fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name)
    return entry.isDirectory() ? filesUnder(full) : entry.isFile() ? [full] : []
  })

/** Every row of every table of the service's database, as Postgres renders the row to text. */
const dumpDatabase = () =>
  service.runtime.runPromise(
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const tables = yield* sql<{ table_schema: string; table_name: string }>`
        SELECT table_schema, table_name FROM information_schema.tables
        WHERE table_type = 'BASE TABLE' AND table_schema NOT IN ('pg_catalog', 'information_schema')`
      const dump: Array<{ table: string; rows: Array<string> }> = []
      for (const table of tables) {
        const rows = yield* sql.unsafe<{ row: string }>(`SELECT t::text AS row FROM "${table.table_schema}"."${table.table_name}" t`)
        dump.push({ table: `${table.table_schema}.${table.table_name}`, rows: rows.map((r) => r.row) })
      }
      return dump
    })
  )

describe("keys at rest", () => {
  it("each sealed key row opens with the configured secret to the key of the wallet's public key", () => {
    for (const wallet of wallets) {
      const { seed, publicKey } = secretsOf(wallet.id)
      expect(seed).toHaveLength(32)
      expect(bs58.encode(publicKey)).toBe(wallet.publicKey)
    }
  })

  it("a wrong secret, or another wallet's id, cannot open a sealed key", () => {
    const [first, second] = wallets
    const wrong = deriveKeyEncryptionKey("not-the-secret", salt())
    expect(() => openSeed(wrong, first!.id, sealedOf(first!.id))).toThrow()
    // The wallet id is bound as AAD: a row moved onto another wallet does not open.
    expect(() => openSeed(kek(), second!.id, sealedOf(first!.id))).toThrow()
  })

  it("DATA_DIR holds no key folder; every wallet's sealed key is a row, and no row holds a secret in any encoding", () => {
    expect(fs.existsSync(path.join(service.dataDir, "keys"))).toBe(false)
    for (const wallet of wallets) expectNoSecret(JSON.stringify(sealedOf(wallet.id)), `the sealed row of ${wallet.id}`)
  })

  it("no row of any table holds a secret, and audit events were written", async () => {
    const dump = await dumpDatabase()
    const tableNames = dump.map((t) => t.table)
    expect(tableNames).toEqual(expect.arrayContaining(["public.wallets", "public.audit_events"]))
    const audit = dump.find((t) => t.table === "public.audit_events")!
    expect(audit.rows.filter((row) => row.includes("wallet.created")).length).toBeGreaterThanOrEqual(wallets.length)
    for (const table of dump) expectNoSecret(table.rows.join("\n"), table.table)
  })

  it("no file anywhere under DATA_DIR (database files included) holds the raw or encoded secret", () => {
    for (const file of filesUnder(service.dataDir)) expectNoSecret(fs.readFileSync(file), file)
  })

  it("no API response (wallets, transaction, proof, audit events) holds a secret", () => {
    expect(responses.length).toBeGreaterThan(wallets.length)
    expectNoSecret(responses.join("\n"), "API responses")
  })
})
