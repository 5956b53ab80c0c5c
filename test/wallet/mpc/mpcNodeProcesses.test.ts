/**
 * Backend `mpc` with its three nodes as separate processes (issue 13 item 3): each node process
 * (`npm run start:mpc-node`, here the same entry as a child) holds only its own node secret; its share of
 * each wallet comes back sealed under that secret and the service keeps it in the database (issue 36),
 * handing it to the node with each signing call; the service has WALLET_MPC_NODE_URLS and the internal
 * token and no node secret. Wallets
 * created by DKG over HTTP sign transfers that confirm and verify under the wallet's key; with one
 * node process stopped a transfer still confirms, with two it fails at `sign`; a call to a node
 * without the token is 401.
 */
import { Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { AppConfig } from "../../../src/config.js"
import { freePort } from "../../support/freePort.js"
import { startTestLedger } from "../../support/ledger.js"
import { sealedRows } from "../../support/sealedKeys.js"
import { type EntryProcess, startEntryProcess, tempDir } from "../../support/processes.js"
import { type RunningService, startService } from "../../support/service.js"
import { createFundedWallet, expectTransferSignedBy, transferSol } from "../custodyChecks.js"

const TOKEN = "mpc-internal-token-of-the-node-test"
const nodeDirs = [1, 2, 3].map((i) => tempDir(`custody-mpc-node-${i}-`))

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService | undefined
const nodes: Array<EntryProcess> = []
const urls: Array<string> = []

beforeAll(async () => {
  ledger = await startTestLedger()
  const ports = await Promise.all([1, 2, 3].map(() => freePort()))
  urls.push(...ports.map((port) => `http://127.0.0.1:${port}`))
  nodes.push(
    ...(await Promise.all(
      ports.map((port, i) =>
        startEntryProcess(
          "src/wallet/mpc/nodeMain.ts",
          {
            DATA_DIR: nodeDirs[i]!,
            WALLET_MPC_NODE_INDEX: String(i + 1),
            WALLET_MPC_NODE_SECRET: `secret-of-mpc-node-process-${i + 1}`,
            WALLET_MPC_NODE_PORT: String(port),
            WALLET_MPC_INTERNAL_TOKEN: TOKEN
          },
          `mpc node ${i + 1} listening`
        )
      )
    ))
  )
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    env: { WALLET_SIGNER_BACKEND: "mpc", WALLET_MPC_NODE_URLS: urls.join(","), WALLET_MPC_INTERNAL_TOKEN: TOKEN }
  })
}, 120_000)

afterAll(async () => {
  await Promise.all(nodes.map((node) => node.stop()))
  await service?.stop()
  await ledger?.close()
  for (const dir of nodeDirs) fs.rmSync(dir, { recursive: true, force: true })
})

const wallets: Array<{ id: string; publicKey: string }> = []

describe("mpc nodes as separate processes", () => {
  it("creates wallets by DKG over HTTP whose transfers confirm under the group key; the service holds no node secret", async () => {
    const wallet = await createFundedWallet(service!.baseUrl, "mpc over http")
    expect(wallet).toMatchObject({ provider: "mpc", keyProvenance: { backend: "mpc", custody: "external" } })
    wallets.push(wallet)
    await expectTransferSignedBy(service!.baseUrl, ledger.rpcUrl, wallet)
    wallets.push(await createFundedWallet(service!.baseUrl, "mpc over http, second"))

    // Each node's sealed share is a row of the database; no node process and no service writes a share file, and the config holds no node secret.
    for (const node of [1, 2, 3]) expect((await sealedRows(service!.database.url, `mpc-node-${node}`)).map((row) => row.keyName)).toContain(wallet.id)
    for (const dir of [...nodeDirs, service!.dataDir]) expect(fs.existsSync(path.join(dir, "mpc"))).toBe(false)
    const config = await service!.runtime.runPromise(AppConfig)
    for (const secret of [config.wallet.mpcNodeSecrets, config.wallet.mpcNode1Secret, config.wallet.mpcNode2Secret, config.wallet.mpcNode3Secret]) {
      expect(Option.isNone(secret)).toBe(true)
    }
  }, 60_000)

  it("still signs with one node process stopped, and fails at sign with two stopped", async () => {
    const [wallet, other] = wallets
    await nodes[1]!.stop()
    await expectTransferSignedBy(service!.baseUrl, ledger.rpcUrl, wallet!)

    await nodes[2]!.stop()
    const refused = await transferSol(service!.baseUrl, wallet!.id, other!.publicKey, 5_000_000)
    expect(refused.body.data).toMatchObject({ status: "failed", failedAt: "sign" })
    expect(refused.body.data.error).toContain("mpc signing needs 2 of 3 nodes; only 1 answered")
    expect(refused.body.data.error).toContain("mpc node 2 is unreachable")
    expect(refused.body.data.signature ?? null).toBeNull()
  }, 60_000)

  it("refuses a call to a node without the internal token (401), and bad arguments (400)", async () => {
    const call = (headers: Record<string, string>, body: unknown = { args: [] }) =>
      fetch(`${urls[0]}/internal/v1/mpc/identity`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }).then(
        async (response) => ({ status: response.status, body: (await response.json()) as { result?: unknown; error?: string } })
      )
    for (const headers of [{}, { authorization: "Bearer not-the-token" }, { authorization: TOKEN }] as Array<Record<string, string>>) {
      const refused = await call(headers)
      expect(refused.status).toBe(401)
      expect(refused.body.result).toBeUndefined()
    }
    const auth = { authorization: `Bearer ${TOKEN}` }
    expect((await call(auth)).body.result).toMatchObject({ identifier: expect.any(String), transportKey: { $hex: expect.any(String) } })
    expect(await call(auth, { args: "not a list" })).toMatchObject({ status: 400, body: { error: expect.stringContaining("args") } })
    const commit = await fetch(`${urls[0]}/internal/v1/mpc/commit`, {
      method: "POST",
      headers: { "content-type": "application/json", ...auth },
      body: JSON.stringify({ args: ["not-a-wallet-id", "s"] })
    })
    expect(commit.status).toBe(422)
    // The node process is still up and answering after the refused calls.
    expect((await fetch(`${urls[0]}/health`)).status).toBe(200)
  })
})
