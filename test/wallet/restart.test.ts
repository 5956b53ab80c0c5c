/**
 * Restart (issue #2): wallets and ledger balances survive a restart of both the service and the
 * ledger process. The ledger runs as the service runs it (a child process, spawnLedger) and is
 * restarted on the same data directory (on ports free at each start); the service restarts on the same data dir and database,
 * and the wallet's key, opened again from its file, still signs a transfer.
 */
import { Connection, PublicKey } from "@solana/web3.js"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { type SpawnedLedger } from "../../src/ledger/spawn.js"
import { spawnLedgerOnFreePorts } from "../support/processes.js"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"

const ledgerDir = fs.mkdtempSync(path.join(os.tmpdir(), "custody-restart-ledger-"))
let ledger: SpawnedLedger | undefined
let service: RunningService | undefined

afterAll(async () => {
  await service?.stop()
  await ledger?.stop()
  fs.rmSync(ledgerDir, { recursive: true, force: true })
})

describe("restart", () => {
  it("keeps wallets and balances across a restart of the service and the ledger", async () => {
    ledger = await spawnLedgerOnFreePorts(ledgerDir)
    service = await startService({ rpcUrl: ledger.rpcUrl })

    const created = await makeClient(service.baseUrl).wallets.create({ body: { label: "durable", autoFund: true, fundLamports: 1_250_000_000 } })
    expect(created.status).toBe(201)
    const wallet = created.body.data
    const unfunded = (await makeClient(service.baseUrl).wallets.create({ body: { label: "empty" } })).body.data
    const listBefore = (await makeClient(service.baseUrl).wallets.list({ query: { limit: "100" } })).body.data

    const { dataDir, database } = service
    await service.stop({ keepData: true })
    service = undefined
    await ledger.stop()
    ledger = undefined

    ledger = await spawnLedgerOnFreePorts(ledgerDir)
    expect(await new Connection(ledger.rpcUrl, "confirmed").getBalance(new PublicKey(wallet.publicKey))).toBe(1_250_000_000)
    service = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir, database } })

    const got = await makeClient(service.baseUrl).wallets.get({ params: { walletId: wallet.id } })
    expect(got.status).toBe(200)
    const { funding: _funding, ...stored } = wallet
    expect(got.body.data).toEqual(stored)
    const balance = await makeClient(service.baseUrl).wallets.balance({ params: { walletId: wallet.id } })
    expect(balance.body.data).toEqual({ lamports: 1_250_000_000, sol: 1.25 })
    expect((await makeClient(service.baseUrl).wallets.balance({ params: { walletId: unfunded.id } })).body.data).toEqual({ lamports: 0, sol: 0 })
    const listAfter = (await makeClient(service.baseUrl).wallets.list({ query: { limit: "100" } })).body.data
    expect(listAfter).toEqual(listBefore)

    // The restarted service keeps creating wallets beside the old ones (same KDF salt, same database).
    const another = await makeClient(service.baseUrl).wallets.create({ body: { label: "after restart" } })
    expect(another.status).toBe(201)
    expect(another.body.data.publicKey).not.toBe(wallet.publicKey)

    // The key opened from its file after the restart signs: a transfer from the old wallet confirms.
    const sent = await makeClient(service.baseUrl).transactions.create({ query: { waitMs: "30000" }, body: {
      walletId: wallet.id,
      type: "transfer_sol",
      protocol: "system-program",
      intent: { destination: another.body.data.publicKey, lamports: 1_000_000 }
    } })
    expect(sent.body.data.status).toBe("confirmed")
    const connection = new Connection(ledger.rpcUrl, "confirmed")
    expect(await connection.getBalance(new PublicKey(another.body.data.publicKey))).toBe(1_000_000)
  }, 120_000) // two service starts, two ledger starts and a transfer
})
