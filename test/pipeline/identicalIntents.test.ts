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
// at least two rounds; more (up to ten) until the race has happened at least once
const MIN_ROUNDS = 2
const MAX_ROUNDS = 10

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

type Settled = Awaited<ReturnType<typeof waitTerminal>>
const builtAgain = (got: Settled) => got.data.history.some((entry) => entry.message?.includes("another transaction signed the same bytes"))

/**
 * Rounds of the same payment asked of both processes at once, until some transaction was built again (the race
 * happened: else the test would show nothing) and at least MIN_ROUNDS ran; then every one must have paid once.
 */
const payInRounds = async (round: () => Promise<ReadonlyArray<Settled>>, destination: string) => {
  const settled: Array<Settled> = []
  let rounds = 0
  while (rounds < MIN_ROUNDS || (!settled.some(builtAgain) && rounds < MAX_ROUNDS)) {
    settled.push(...(await round()))
    rounds++
  }
  const failures = settled.filter((got) => got.data.status !== "confirmed").map((got) => `${got.data.id}: ${got.data.error}`)
  expect(failures).toEqual([])
  expect(await balance(destination)).toBe(rounds * PER_SERVICE * 2 * LAMPORTS)
  const signatures = settled.map((got) => got.data.signature)
  expect(new Set(signatures).size).toBe(signatures.length)
  // each one built again says why in its history
  expect(settled.filter(builtAgain).length, `no transaction was built again in ${rounds} rounds: the race never happened`).toBeGreaterThan(0)
}

const serviceOf = (i: number) => (i % 2 === 0 ? first : second)

describe("the same intent through two worker processes at once", () => {
  it("pays every one exactly once: a message another process already signed is built again, never failed", async () => {
    const wallet = await createWallet(first.baseUrl, 5 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const intent = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS } }
    await payInRounds(async () => {
      const created = await Promise.all(Array.from({ length: PER_SERVICE * 2 }, (_, i) => submit(serviceOf(i).baseUrl, intent)))
      expect(created.map((answer) => answer.status)).toEqual(created.map(() => 201))
      return Promise.all(created.map((answer) => waitTerminal(first.baseUrl, answer.body.data.id as string)))
    }, destination)
  }, 300_000)

  it("pays each approved one exactly once: built again at signing, compared with the approved preview, never failed", async () => {
    const wallet = await createWallet(first.baseUrl, 5 * SOL)
    const destination = Keypair.generate().publicKey.toBase58()
    const intent = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports: LAMPORTS } }
    await payInRounds(async () => {
      const gated = await Promise.all(Array.from({ length: PER_SERVICE * 2 }, (_, i) => submit(serviceOf(i).baseUrl, intent, undefined, "?waitMs=20000")))
      expect(gated.map((answer) => answer.status)).toEqual(gated.map(() => 202))
      // every approval at once, half through each process (each process runs the signings it was asked for)
      const approved = await Promise.all(
        gated.map((answer, i) =>
          makeClient(serviceOf(i + 1).baseUrl).transactions.approve({
            params: { txId: answer.body.data.id as string }, body: { previewHash: answer.data?.approval?.previewHash ?? "" }
          })
        )
      )
      expect(approved.map((answer) => answer.status)).toEqual(approved.map(() => 200))
      return Promise.all(gated.map((answer) => waitTerminal(first.baseUrl, answer.body.data.id as string)))
    }, destination)
  }, 300_000)
})
