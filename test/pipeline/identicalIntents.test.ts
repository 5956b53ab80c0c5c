/**
 * Two worker processes, one wallet, the same payment many times at once (an agent paying the same
 * amount to the same address, its requests spread over two processes): each process makes its own
 * messages distinct by their compute-unit price, but the two processes build the same bytes from the
 * same blockhash, so the same signature. The one whose signature is recorded second never sends its
 * bytes: it builds again (a price neither process has used), is judged by policy again, and pays.
 *
 * Two whole services in this test process on one database, data dir and ledger (each with its own
 * message builder, as two processes have); every transfer is asked of both at once.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { startTestLedger } from "../support/ledger.js"
import { type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitTerminal } from "../support/transactions.js"

const SOL = 1_000_000_000
const LAMPORTS = 1_000_000
const PER_SERVICE = 12
const ROUNDS = 4

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let first: RunningService
let second: RunningService

beforeAll(async () => {
  // 2 s slots: a blockhash lives long enough that both processes build on the same one (what a busy cluster does within a slot)
  ledger = await startTestLedger({ slotMs: 2_000 })
  first = await startService({ rpcUrl: ledger.rpcUrl })
  second = await startService({ rpcUrl: ledger.rpcUrl, reuse: { dataDir: first.dataDir, database: first.database } })
}, 120_000)

afterAll(async () => {
  await second?.stop({ keepData: true })
  await first?.stop()
  await ledger?.close()
})

const balance = (address: string) => new Connection(ledger.rpcUrl, "confirmed").getBalance(new PublicKey(address))

describe("the same intent through two worker processes at once", () => {
  it("pays every one exactly once: a message another process already signed is built again, never failed", async () => {
    const wallet = await createWallet(first.baseUrl, 5 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const intent = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS } }
    const settled = []
    for (let round = 0; round < ROUNDS; round++) {
      const created = await Promise.all(
        Array.from({ length: PER_SERVICE * 2 }, (_, i) => submit((i % 2 === 0 ? first : second).baseUrl, intent))
      )
      expect(created.map((answer) => answer.status)).toEqual(created.map(() => 201))
      settled.push(...(await Promise.all(created.map((answer) => waitTerminal(first.baseUrl, answer.body.data.id as string)))))
    }
    const failures = settled.filter((got) => got.data.status !== "confirmed").map((got) => `${got.data.id}: ${got.data.error}`)
    expect(failures).toEqual([])
    expect(await balance(destination)).toBe(ROUNDS * PER_SERVICE * 2 * LAMPORTS)
    const signatures = settled.map((got) => got.data.signature)
    expect(new Set(signatures).size).toBe(signatures.length)

    // The race did happen (else this test showed nothing): some transactions were built again at signing,
    // each with its reason in its history.
    const builtAgain = settled.filter((got) => got.data.history.some((entry) => entry.message?.includes("another transaction signed the same bytes")))
    expect(builtAgain.length).toBeGreaterThan(0)
  }, 240_000)

  it("pays each approved one exactly once: built again at signing, compared with the approved preview, never failed", async () => {
    const wallet = await createWallet(first.baseUrl, 5 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const intent = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports: LAMPORTS } }
    const settled = []
    for (let round = 0; round < ROUNDS; round++) {
      const gated = await Promise.all(
        Array.from({ length: PER_SERVICE * 2 }, (_, i) => submit((i % 2 === 0 ? first : second).baseUrl, intent, undefined, "?waitMs=20000"))
      )
      expect(gated.map((answer) => answer.status)).toEqual(gated.map(() => 202))
      // every approval at once, half through each process (each process runs the signings it was asked for)
      const approved = await Promise.all(
        gated.map((answer, i) =>
          makeClient((i % 2 === 0 ? second : first).baseUrl).transactions.approve({
            params: { txId: answer.body.data.id as string }, body: { previewHash: answer.data?.approval?.previewHash ?? "" }
          })
        )
      )
      expect(approved.map((answer) => answer.status)).toEqual(approved.map(() => 200))
      settled.push(...(await Promise.all(gated.map((answer) => waitTerminal(first.baseUrl, answer.body.data.id as string)))))
    }
    const failures = settled.filter((got) => got.data.status !== "confirmed").map((got) => `${got.data.id}: ${got.data.error}`)
    expect(failures).toEqual([])
    expect(await balance(destination)).toBe(ROUNDS * PER_SERVICE * 2 * LAMPORTS)
    const signatures = settled.map((got) => got.data.signature)
    expect(new Set(signatures).size).toBe(signatures.length)
    const builtAgain = settled.filter((got) => got.data.history.some((entry) => entry.message?.includes("another transaction signed the same bytes")))
    expect(builtAgain.length).toBeGreaterThan(0)
  }, 240_000)
})
