/**
 * Split deployment (issue 13 item 4): the wallet engine runs as its own process (`npm run
 * start:wallet-engine`, here the same entry as a child) holding the key secret; the gateway+pipeline
 * process has WALLET_ENGINE_URL and no key secret at all (and refuses to start with one). Transfers
 * confirm through it; a direct call to the engine without the internal token, or for a transaction
 * not at `signing`, is refused. Needs a real PostgreSQL (two processes share it), as the other
 * multi-process tests do.
 */
import { PublicKey } from "@solana/web3.js"
import { createPublicKey, verify } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Effect, Option } from "effect"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppConfig } from "../../src/config.js"
import { freePort } from "../support/freePort.js"
import { defined } from "../support/defined.js"
import type { SignAnswer } from "../support/undeclaredAnswers.js"
import { startTestLedger } from "../support/ledger.js"
import { sealedRows } from "../support/sealedKeys.js"
import { createPostgresDatabase, type FreshDatabase } from "../support/processes.js"
import { startWalletEngine } from "../support/walletEngineProcess.js"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"
import { createFundedWallet, expectTransferSignedBy } from "./custodyChecks.js"

const TOKEN = "internal-token-of-the-split-test"
const ENGINE_SECRET = "the-engine-key-encryption-secret"
const engineDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-engine-"))
const gatewayDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-gateway-"))

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let database: FreshDatabase
let gateway: RunningService | undefined
let engine: Awaited<ReturnType<typeof startWalletEngine>> | undefined
let engineUrl: string

beforeAll(async () => {
  database = await createPostgresDatabase()
  ledger = await startTestLedger()
  const port = await freePort()
  engineUrl = `http://127.0.0.1:${port}`
  // The gateway first: it owns the schema and runs the migrations the engine reads.
  gateway = await startService({
    rpcUrl: ledger.rpcUrl,
    reuse: { dataDir: gatewayDir, database },
    env: { WALLET_ENGINE_URL: engineUrl, WALLET_ENGINE_INTERNAL_TOKEN: TOKEN, WALLET_KEY_ENCRYPTION_SECRET: "" }
  })
  engine = await startWalletEngine({ port, dataDir: engineDir, databaseUrl: database.url, internalToken: TOKEN, keySecret: ENGINE_SECRET })
}, 120_000)

afterAll(async () => {
  engine?.stop()
  await gateway?.stop()
  await ledger?.close()
  fs.rmSync(engineDir, { recursive: true, force: true })
})

const engineCall = (route: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${engineUrl}${route}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }).then(
    async (response) => ({ status: response.status, body: (await response.json()) as { error?: string; signature?: string } })
  )

let confirmed: { id: string; walletId: string }

describe("split deployment", () => {
  it("creates keys and signs in the wallet engine: transfers confirm", async () => {
    const wallet = await createFundedWallet(gateway!.baseUrl, "split wallet")
    expect(wallet).toMatchObject({ provider: "local-dev", keyProvenance: { backend: "encrypted-file" } })
    const signature = await expectTransferSignedBy(gateway!.baseUrl, ledger.rpcUrl, wallet)
    const listed = await makeClient(gateway!.baseUrl).transactions.listByWallet({ params: { walletId: wallet.id } })
    confirmed = { id: defined(listed.body.data.transactions.find((t) => t.signature === signature), "the confirmed transfer").id, walletId: wallet.id }
    // The engine sealed the key into the database (issue 36): no key folder in either DATA_DIR, and only
    // the engine's secret opens the row.
    expect((await sealedRows(database.url, "encrypted-file")).map((row) => row.keyName)).toContain(wallet.id)
    expect(fs.existsSync(path.join(engineDir, "keys"))).toBe(false)
    expect(fs.existsSync(path.join(gatewayDir, "keys"))).toBe(false)
  }, 60_000)

  it("signs an off-chain message through the engine, verifiable with the wallet's public key", async () => {
    const text = Buffer.from("split deployment sign-in, nonce 7")
    const signed = await api<SignAnswer>(gateway!.baseUrl, "POST", `/api/v1/wallets/${confirmed.walletId}/sign`, { message: text.toString("base64") })
    expect(signed.status).toBe(200)
    const signedMessage = Buffer.from(defined(signed.body.data.signedMessage, "the signed message"), "base64")
    expect(signedMessage.subarray(0, 16).equals(Buffer.concat([Buffer.from([0xff]), Buffer.from("solana offchain")]))).toBe(true)
    const wallet = (await makeClient(gateway!.baseUrl).wallets.get({ params: { walletId: confirmed.walletId } })).body.data
    const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), new PublicKey(wallet.publicKey).toBuffer()])
    expect(verify(null, signedMessage, createPublicKey({ key: spki, format: "der", type: "spki" }), Buffer.from(signed.body.data.signature, "base64"))).toBe(true)
  })

  it("the gateway+pipeline process holds no key secret, and refuses to start with one", async () => {
    const config = await gateway!.runtime.runPromise(AppConfig)
    const w = config.wallet
    for (const secret of [w.keyEncryptionSecret, w.kmsMasterSecret, w.hsmPin, w.hsmModuleSecret, w.mpcNodeSecrets, w.mpcNode1Secret, w.mpcNode2Secret, w.mpcNode3Secret, w.autofundPayerPrivateKey]) {
      expect(Option.isNone(secret)).toBe(true)
    }
    const refused = startService({
      rpcUrl: ledger.rpcUrl,
      reuse: { dataDir: gatewayDir, database: { url: database.url, drop: async () => {} } },
      env: { WALLET_ENGINE_URL: engineUrl, WALLET_ENGINE_INTERNAL_TOKEN: TOKEN, WALLET_KMS_MASTER_SECRET: "a-secret-in-the-wrong-place" }
    })
    await expect(refused).rejects.toThrow(/WALLET_KEY_ENCRYPTION_SECRET must not be set where WALLET_ENGINE_URL is/)
  })

  it("refuses a direct call without the internal token, or for a transaction not at signing", async () => {
    const message = Buffer.from("any message").toString("base64")
    const request = { txId: confirmed.id, walletId: confirmed.walletId, message }
    for (const headers of [{}, { authorization: "Bearer not-the-token" }, { authorization: TOKEN }] as Array<Record<string, string>>) {
      const refused = await engineCall("/internal/v1/sign", request, headers)
      expect(refused.status).toBe(401)
      expect(refused.body.signature).toBeUndefined()
    }
    const auth = { authorization: `Bearer ${TOKEN}` }
    const notSigning = await engineCall("/internal/v1/sign", request, auth)
    expect(notSigning).toMatchObject({ status: 409, body: { error: "transaction is confirmed, not at signing" } })
    const unknown = await engineCall("/internal/v1/sign", { ...request, txId: "00000000-0000-4000-8000-000000000000" }, auth)
    expect(unknown.status).toBe(404)
    const malformed = await engineCall("/internal/v1/sign", { txId: "x" }, auth)
    expect(malformed.status).toBe(400)
    // A key is never made over an existing wallet's.
    const overwrite = await engineCall("/internal/v1/keys", { walletId: confirmed.walletId }, auth)
    expect(overwrite).toMatchObject({ status: 409, body: { error: "a wallet with this id exists" } })
    expect(engine?.output()).not.toContain(ENGINE_SECRET)
  })

  it("checks the recorded approval as the signer actor does: one given after it expired signs nothing", async () => {
    // The engine is the isolation boundary: it re-reads the row, whatever the transaction engine asks.
    // A row at signing whose approval came late (as a faulty or compromised writer could leave it).
    const client = new pg.Client({ connectionString: database.url })
    await client.connect()
    try {
      const [row] = (await client.query("SELECT message_base64 FROM transactions WHERE id = $1", [confirmed.id])).rows
      const expiresAt = new Date(Date.now() - 60_000)
      const hold = (decidedAt: Date) =>
        client.query(
          `UPDATE transactions SET status = 'signing', policy_decision = jsonb_set(policy_decision, '{decision}', '"require_approval"'), approval = $2 WHERE id = $1`,
          [confirmed.id, JSON.stringify({ status: "approved", expiresAt: expiresAt.toISOString(), decidedAt: decidedAt.toISOString() })]
        )
      const auth = { authorization: `Bearer ${TOKEN}` }
      const request = { txId: confirmed.id, walletId: confirmed.walletId, message: row.message_base64 }
      await hold(new Date(expiresAt.getTime() + 1))
      expect(await engineCall("/internal/v1/sign", request, auth)).toMatchObject({ status: 409, body: { error: "the approval was not given before it expired" } })
      // The same row approved in time: the engine signs the recorded message.
      await hold(new Date(expiresAt.getTime() - 1))
      const signed = await engineCall("/internal/v1/sign", request, auth)
      expect(signed.status).toBe(200)
      expect(Buffer.from(signed.body.signature ?? "", "base64")).toHaveLength(64)
    } finally {
      await client.query("UPDATE transactions SET status = 'confirmed' WHERE id = $1", [confirmed.id])
      await client.end()
    }
  })
})
