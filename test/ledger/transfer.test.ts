// The ledger served in-process, driven by @solana/web3.js exactly as the service will drive it.
import {
  Connection,
  Keypair,
  LAMPORTS_PER_SOL,
  SystemProgram,
  Transaction,
  sendAndConfirmTransaction
} from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLedgerServer, type LedgerServer } from "../../src/ledger/server.js"
import { pickPort, rawRpc, tempDataDir } from "./helpers.js"

let server: LedgerServer
let connection: Connection
const payer = Keypair.generate()

beforeAll(async () => {
  server = await startLedgerServer({ port: await pickPort(), dataDir: tempDataDir() })
  connection = new Connection(server.rpcUrl, { commitment: "confirmed", wsEndpoint: server.wsUrl })
  const signature = await connection.requestAirdrop(payer.publicKey, 10 * LAMPORTS_PER_SOL)
  const latest = await connection.getLatestBlockhash()
  await connection.confirmTransaction({ signature, ...latest })
})

afterAll(async () => {
  await server.close()
})

describe("ledger with web3.js", () => {
  it("confirms a SOL transfer with sendAndConfirmTransaction", async () => {
    const recipient = Keypair.generate().publicKey
    const tx = new Transaction().add(
      SystemProgram.transfer({ fromPubkey: payer.publicKey, toPubkey: recipient, lamports: 0.5 * LAMPORTS_PER_SOL })
    )
    const before = await connection.getBalance(payer.publicKey)
    const signature = await sendAndConfirmTransaction(connection, tx, [payer])
    expect(await connection.getBalance(recipient)).toBe(0.5 * LAMPORTS_PER_SOL)
    expect(await connection.getBalance(payer.publicKey)).toBe(before - 0.5 * LAMPORTS_PER_SOL - 5000)

    const status = await connection.getSignatureStatus(signature, { searchTransactionHistory: true })
    expect(status.value).toMatchObject({ err: null, confirmationStatus: "finalized", confirmations: null })

    const fetched = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })
    expect(fetched?.meta?.fee).toBe(5000)
    expect(fetched?.meta?.err).toBeNull()
    expect(fetched?.meta?.preBalances[0]).toBe(before)
    expect(fetched?.meta?.postBalances[1]).toBe(0.5 * LAMPORTS_PER_SOL)
    expect(fetched?.meta?.logMessages?.[0]).toContain("invoke [1]")
    expect(fetched?.transaction.signatures[0]).toBe(signature)

    const parsed = await connection.getParsedTransaction(signature, { maxSupportedTransactionVersion: 0 })
    expect(parsed?.transaction.message.instructions[0]).toMatchObject({
      program: "system",
      parsed: { type: "transfer", info: { lamports: 0.5 * LAMPORTS_PER_SOL, destination: recipient.toBase58() } }
    })
    const base64 = await rawRpc<{ transaction: [string, string] }>(server.rpcUrl, {
      jsonrpc: "2.0", id: 1, method: "getTransaction", params: [signature, { encoding: "base64" }]
    })
    expect(base64.result?.transaction[1]).toBe("base64")
  })
})
