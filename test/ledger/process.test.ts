// The ledger as the service runs it: a child process, stopped and restarted on the same data directory
// (on ports free at each start).
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, sendAndConfirmTransaction } from "@solana/web3.js"
import { afterAll, describe, expect, it } from "vitest"
import { type SpawnedLedger } from "../../src/ledger/spawn.js"
import { isRunning } from "../support/processTree.js"
import { spawnLedgerOnFreePorts } from "../support/processes.js"
import { rawRpc, tempDataDir } from "./helpers.js"

const dataDir = tempDataDir()
let ledger: SpawnedLedger | null = null

afterAll(async () => {
  await ledger?.stop()
})

describe("ledger child process", () => {
  it("survives garbage, keeps balances across a restart, and stops cleanly", async () => {
    ledger = await spawnLedgerOnFreePorts(dataDir)
    const connection = new Connection(ledger.rpcUrl, "confirmed")
    const payer = Keypair.generate()
    const recipient = Keypair.generate().publicKey
    const airdrop = await connection.requestAirdrop(payer.publicKey, 2 * LAMPORTS_PER_SOL)
    await connection.confirmTransaction({ signature: airdrop, ...(await connection.getLatestBlockhash()) })
    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: LAMPORTS_PER_SOL }))
    const signature = await sendAndConfirmTransaction(connection, tx, [payer])

    // Bytes that once aborted litesvm's native code: a signature section followed by a cut-off message.
    const truncated = Buffer.concat([Buffer.from([1]), Buffer.alloc(64, 7), Buffer.from([1, 0, 1])]).toString("base64")
    for (const wire of [truncated, Buffer.alloc(64, 0xaa).toString("base64")]) {
      const reply = await rawRpc(ledger.rpcUrl, { jsonrpc: "2.0", id: 1, method: "sendTransaction", params: [wire, { encoding: "base64" }] })
      expect(reply.error?.code).toBe(-32602)
    }
    expect((await rawRpc(ledger.rpcUrl, { jsonrpc: "2.0", id: 2, method: "getHealth" })).result).toBe("ok")
    const slotBefore = await connection.getSlot()

    const firstPid = ledger.pid
    await ledger.stop()
    expect(isRunning(firstPid)).toBe(false)

    ledger = await spawnLedgerOnFreePorts(dataDir)
    const again = new Connection(ledger.rpcUrl, "confirmed")
    expect(await again.getBalance(recipient)).toBe(LAMPORTS_PER_SOL)
    expect(await again.getBalance(payer.publicKey)).toBe(LAMPORTS_PER_SOL - 5000)
    expect(await again.getSlot()).toBeGreaterThan(slotBefore)
    const status = await again.getSignatureStatus(signature, { searchTransactionHistory: true })
    expect(status.value?.err).toBeNull()
    expect((await again.getTransaction(signature, { maxSupportedTransactionVersion: 0 }))?.meta?.fee).toBe(5000)

    // The restored ledger keeps executing.
    const next = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 1000 }))
    await sendAndConfirmTransaction(again, next, [payer])
    expect(await again.getBalance(recipient)).toBe(LAMPORTS_PER_SOL + 1000)
  })
})
