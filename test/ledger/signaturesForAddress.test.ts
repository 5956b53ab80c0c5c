// getSignaturesForAddress on the local ledger, as web3.js users list a wallet's history (issue 17
// item 8): newest first, with `before`, `until` and `limit` as Solana defines them.
import { Connection, Keypair, LAMPORTS_PER_SOL, SystemProgram, Transaction, sendAndConfirmTransaction } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLedgerServer, type LedgerServer } from "../../src/ledger/server.js"
import { pickPort, rawRpc, tempDataDir } from "./helpers.js"

let server: LedgerServer
let connection: Connection
const payer = Keypair.generate()
const recipient = Keypair.generate().publicKey
let airdrop: string
const transfers: string[] = []

beforeAll(async () => {
  server = await startLedgerServer({ port: await pickPort(), dataDir: tempDataDir() })
  connection = new Connection(server.rpcUrl, { commitment: "confirmed", wsEndpoint: server.wsUrl })
  airdrop = await connection.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL)
  await connection.confirmTransaction({ signature: airdrop, ...(await connection.getLatestBlockhash()) })
  for (let i = 0; i < 4; i++) {
    const tx = new Transaction().add(SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: LAMPORTS_PER_SOL / 10 + i }))
    transfers.push(await sendAndConfirmTransaction(connection, tx, [payer]))
  }
}, 60_000)

afterAll(async () => {
  await server.close()
})

describe("getSignaturesForAddress", () => {
  it("lists a wallet's transactions newest first, its airdrop included", async () => {
    const listed = await connection.getSignaturesForAddress(payer.publicKey)
    expect(listed.map((s) => s.signature)).toEqual([...transfers].reverse().concat(airdrop))
    for (const entry of listed) {
      expect(entry).toMatchObject({ err: null, memo: null, confirmationStatus: "finalized" })
      expect(entry.slot).toEqual(expect.any(Number))
      expect(entry.blockTime).toEqual(expect.any(Number))
    }
    const slots = listed.map((s) => s.slot)
    expect([...slots].sort((a, b) => b - a)).toEqual(slots)
    // The recipient sees the transfers to it, and nothing else.
    expect((await connection.getSignaturesForAddress(recipient)).map((s) => s.signature)).toEqual([...transfers].reverse())
    expect(await connection.getSignaturesForAddress(Keypair.generate().publicKey)).toEqual([])
    // A program in the transaction counts as an address of it, as on a cluster.
    const system = await connection.getSignaturesForAddress(SystemProgram.programId, { limit: 1000 })
    expect(system.map((s) => s.signature)).toEqual(expect.arrayContaining(transfers))
  })

  it("pages with limit, before and until (both exclusive)", async () => {
    const newest = [...transfers].reverse()
    expect((await connection.getSignaturesForAddress(payer.publicKey, { limit: 2 })).map((s) => s.signature)).toEqual(newest.slice(0, 2))
    expect((await connection.getSignaturesForAddress(payer.publicKey, { before: newest[1], limit: 2 })).map((s) => s.signature)).toEqual(newest.slice(2, 4))
    expect((await connection.getSignaturesForAddress(payer.publicKey, { until: newest[2] })).map((s) => s.signature)).toEqual(newest.slice(0, 2))
    expect((await connection.getSignaturesForAddress(payer.publicKey, { before: newest[0], until: newest[3] })).map((s) => s.signature)).toEqual(newest.slice(1, 3))
  })

  it("refuses a bad limit or address with invalid params", async () => {
    for (const params of [[payer.publicKey.toBase58(), { limit: 0 }], [payer.publicKey.toBase58(), { limit: 1001 }], ["not-an-address"]]) {
      const reply = await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 1, method: "getSignaturesForAddress", params })
      expect(reply.error?.code).toBe(-32602)
    }
  })

  it("answers a method it does not implement with the standard Method not found", async () => {
    const reply = await rawRpc(server.rpcUrl, { jsonrpc: "2.0", id: 7, method: "getBlock", params: [1] })
    expect(reply).toMatchObject({ id: 7, error: { code: -32601, message: "Method not found" } })
  })
})
