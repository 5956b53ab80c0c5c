/**
 * The kill switch with the signer in another process (issue 34 item 3): the wallet engine signs for the
 * gateway, and a freeze of a wallet issued while 100 transfers are in flight lets none of its transfers be
 * signed after the freeze committed: the engine checks the freeze under the tenant's freeze lock itself.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/freePort.js"
import { freezeUnderLoad } from "../support/freezeUnderLoad.js"
import { startTestLedger } from "../support/ledger.js"
import { createPostgresDatabase, type FreshDatabase } from "../support/processes.js"
import { type RunningService, startService } from "../support/service.js"
import { startWalletEngine } from "../support/walletEngineProcess.js"

const TOKEN = "internal-token-of-the-freeze-test"
const engineDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-engine-freeze-"))
const gatewayDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-gateway-freeze-"))
const OPS = { "x-api-key": "ops-key" }

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let database: FreshDatabase
let gateway: RunningService | undefined
let engine: Awaited<ReturnType<typeof startWalletEngine>> | undefined

beforeAll(async () => {
  database = await createPostgresDatabase()
  ledger = await startTestLedger()
  const port = await freePort()
  gateway = await startService({
    rpcUrl: ledger.rpcUrl,
    reuse: { dataDir: gatewayDir, database },
    env: {
      WALLET_ENGINE_URL: `http://127.0.0.1:${port}`, WALLET_ENGINE_INTERNAL_TOKEN: TOKEN, WALLET_KEY_ENCRYPTION_SECRET: "",
      API_GATEWAY_API_KEYS: "test-admin-key:*:all;ops-key:acme:all"
    }
  })
  engine = await startWalletEngine({ port, dataDir: engineDir, databaseUrl: database.url, internalToken: TOKEN, keySecret: "the-engine-secret-of-the-freeze-test" })
}, 120_000)

afterAll(async () => {
  engine?.stop()
  await gateway?.stop()
  await ledger?.close()
  fs.rmSync(engineDir, { recursive: true, force: true })
})

describe("a freeze with the signer in the wallet engine process", () => {
  it("a wallet frozen while 100 transfers are in flight: none of its transfers is signed after the freeze commits", async () => {
    const query = (text: string, values: Array<unknown>) => database.query(text, values)
    const outcome = await freezeUnderLoad({ baseUrl: gateway!.baseUrl, rpcUrl: ledger.rpcUrl, headers: OPS, query, scope: "wallet" })
    expect(outcome.freeze).toMatchObject({ scope: "wallet", targetId: outcome.wallets[0].id })
  }, 300_000)
})
