/**
 * The restore drill (issue 36 item 3), as the README's "Backup and restore" says it: wallets are made
 * under every persistent key backend (encrypted-file, kms, hsm on a SoftHSM2 token, mpc with three
 * in-process nodes) by the real entry point, and an API key is issued. The database is backed up with
 * `pg_dump -Fc`, restored with `pg_restore` into an empty database, and the original database and DATA_DIR
 * are deleted. A fresh process on a fresh DATA_DIR with the same secrets (and the same HSM token, a device)
 * then signs a transfer from every wallet, each landing on the ledger, and accepts the issued key.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { WireDataOf } from "../support/client.js"
import type { KeysApi } from "../../schemas/api/keys.js"
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import {
  call,
  createFundedWallet,
  createPostgresDatabase,
  type FreshDatabase,
  killAllChildren,
  ledgerRpc,
  startLedgerProcess,
  startServiceProcess,
  tempDir
} from "../support/processes.js"

const SOFTHSM_MODULE = "/usr/lib/softhsm/libsofthsm2.so"
const TOKEN_LABEL = "restore-drill"
const PIN = "246810"
const BACKENDS = ["encrypted-file", "kms", "hsm", "mpc"] as const

let ledger: Awaited<ReturnType<typeof startLedgerProcess>> | undefined
let original: FreshDatabase | undefined
let restored: FreshDatabase | undefined
const dirs: Array<string> = []
const dir = (prefix: string) => {
  const made = tempDir(prefix)
  dirs.push(made)
  return made
}

/** The HSM: a SoftHSM2 token in a directory of its own, as a device outlives the service's machine. */
const hsmDevice = () => {
  const root = dir("custody-drill-hsm-")
  fs.mkdirSync(path.join(root, "tokens"))
  const conf = path.join(root, "softhsm2.conf")
  fs.writeFileSync(conf, `directories.tokendir = ${path.join(root, "tokens")}\nobjectstore.backend = file\nlog.level = ERROR\n`)
  execFileSync("softhsm2-util", ["--init-token", "--free", "--label", TOKEN_LABEL, "--pin", PIN, "--so-pin", "13579"], {
    env: { PATH: process.env.PATH ?? "", SOFTHSM2_CONF: conf },
    stdio: "ignore"
  })
  return conf
}

let secrets: Record<string, string> = {}
const wallets: Array<{ id: string; publicKey: string; backend: string }> = []
let issuedKey = ""

beforeAll(async () => {
  ledger = await startLedgerProcess()
  original = await createPostgresDatabase()
  restored = await createPostgresDatabase()
  secrets = {
    WALLET_KEY_ENCRYPTION_SECRET: "drill-key-encryption-secret",
    WALLET_KMS_MASTER_SECRET: "drill-kms-master-secret",
    WALLET_KMS_KEY_ID: "drill-master-1",
    WALLET_HSM_MODULE: SOFTHSM_MODULE,
    WALLET_HSM_PIN: PIN,
    WALLET_HSM_SLOT: TOKEN_LABEL,
    SOFTHSM2_CONF: hsmDevice(),
    WALLET_MPC_NODE_SECRETS: "drill-node-one,drill-node-two,drill-node-three"
  }
}, 120_000)

afterAll(async () => {
  killAllChildren()
  await ledger?.close()
  await original?.drop()
  await restored?.drop()
  for (const made of dirs) fs.rmSync(made, { recursive: true, force: true })
}, 60_000)

describe("restore drill", () => {
  it("makes wallets under every persistent backend and an API key, then backs the database up with pg_dump", async () => {
    const dataDir = dir("custody-drill-before-")
    for (const backend of BACKENDS) {
      const service = await startServiceProcess({ databaseUrl: original!.url, dataDir, rpcUrl: ledger!.rpcUrl, env: { ...secrets, WALLET_SIGNER_BACKEND: backend } })
      try {
        const wallet = await createFundedWallet(service.baseUrl, 2_000_000_000)
        expect(wallet.keyProvenance.backend).toBe(backend)
        wallets.push({ id: wallet.id, publicKey: wallet.publicKey, backend })
        if (backend === "encrypted-file") {
          const key = await call<WireDataOf<typeof KeysApi.issue>>(service.baseUrl, "POST", "/api/v1/keys", { tenant: "*", scopes: ["wallets", "transactions"], label: "survives the restore" })
          expect(key.status).toBe(201)
          issuedKey = key.body.data.secret
        }
      } finally {
        await service.stop()
      }
    }
    expect(fs.readdirSync(dataDir).filter((name) => ["keys", "kms", "mpc"].includes(name))).toEqual([])

    const dump = path.join(dir("custody-drill-dump-"), "custody.dump")
    execFileSync("pg_dump", ["-Fc", "-f", dump, original!.url])
    execFileSync("pg_restore", ["--no-owner", "-d", restored!.url, dump])
    // Nothing of the original deployment is left but the dump and the secrets.
    await original!.drop()
    original = undefined
    fs.rmSync(dataDir, { recursive: true, force: true })
  }, 300_000)

  it("a fresh process on a fresh DATA_DIR with the same secrets signs a transfer from every wallet, and each lands", async () => {
    expect(wallets.map((wallet) => wallet.backend)).toEqual([...BACKENDS])
    const service = await startServiceProcess({ databaseUrl: restored!.url, dataDir: dir("custody-drill-after-"), rpcUrl: ledger!.rpcUrl, env: secrets })
    try {
      for (const wallet of wallets) {
        const destination = wallets.find((other) => other.id !== wallet.id)!.publicKey
        const before = await ledgerRpc<{ value: number }>(ledger!.rpcUrl, "getBalance", [destination, { commitment: "confirmed" }])
        const sent = await call<WireDataOf<typeof TransactionsApi.create>>(service.baseUrl, "POST", "/api/v1/transactions?waitMs=30000", {
          walletId: wallet.id,
          type: "transfer_sol",
          protocol: "system-program",
          intent: { destination, lamports: 1_234_567 }
        })
        expect(sent.body.data, `${wallet.backend}: ${JSON.stringify(sent.body)}`).toMatchObject({ status: "confirmed" })
        const landed = await ledgerRpc<{ meta: { err: unknown } } | null>(ledger!.rpcUrl, "getTransaction", [sent.body.data.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 }])
        expect(landed?.meta.err, wallet.backend).toBeNull()
        const after = await ledgerRpc<{ value: number }>(ledger!.rpcUrl, "getBalance", [destination, { commitment: "confirmed" }])
        expect(after.value - before.value, wallet.backend).toBe(1_234_567)
      }
      const withIssuedKey = await fetch(`${service.baseUrl}/api/v1/wallets`, { headers: { "x-api-key": issuedKey } })
      expect(withIssuedKey.status).toBe(200)
    } finally {
      await service.stop()
    }
  }, 300_000)
})
