// SPL token mint and transfer with spl-token's own helpers, read back through jsonParsed RPC methods.
import {
  createMint,
  getOrCreateAssociatedTokenAccount,
  mintTo,
  transfer,
  TOKEN_PROGRAM_ID
} from "@solana/spl-token"
import { Connection, Keypair, LAMPORTS_PER_SOL, type ParsedAccountData } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { startLedgerServer, type LedgerServer } from "../../src/ledger/server.js"
import { pickPort, tempDataDir } from "./helpers.js"

let server: LedgerServer
let connection: Connection
const payer = Keypair.generate()

beforeAll(async () => {
  server = await startLedgerServer({ port: await pickPort(), dataDir: tempDataDir() })
  connection = new Connection(server.rpcUrl, "confirmed")
  const signature = await connection.requestAirdrop(payer.publicKey, 5 * LAMPORTS_PER_SOL)
  await connection.confirmTransaction({ signature, ...(await connection.getLatestBlockhash()) })
})

afterAll(async () => {
  await server.close()
})

describe("SPL token on the ledger", () => {
  it("mints and transfers, then reports balances like a validator", async () => {
    const owner = Keypair.generate()
    const receiver = Keypair.generate()
    const mint = await createMint(connection, payer, payer.publicKey, null, 6)
    const source = await getOrCreateAssociatedTokenAccount(connection, payer, mint, owner.publicKey)
    const destination = await getOrCreateAssociatedTokenAccount(connection, payer, mint, receiver.publicKey)
    await mintTo(connection, payer, mint, source.address, payer, 5_000_000n)
    const signature = await transfer(connection, payer, source.address, destination.address, owner, 1_250_000n)

    const balance = await connection.getTokenAccountBalance(destination.address)
    expect(balance.value).toEqual({ amount: "1250000", decimals: 6, uiAmount: 1.25, uiAmountString: "1.25" })
    expect((await connection.getTokenAccountBalance(source.address)).value.amount).toBe("3750000")

    const byOwner = await connection.getParsedTokenAccountsByOwner(owner.publicKey, { mint })
    expect(byOwner.value).toHaveLength(1)
    expect(byOwner.value[0].pubkey.equals(source.address)).toBe(true)
    const data = byOwner.value[0].account.data as ParsedAccountData
    expect(data.program).toBe("spl-token")
    expect(data.parsed).toMatchObject({
      type: "account",
      info: { mint: mint.toBase58(), owner: owner.publicKey.toBase58(), state: "initialized", tokenAmount: { amount: "3750000", decimals: 6 } }
    })
    const byProgram = await connection.getParsedTokenAccountsByOwner(receiver.publicKey, { programId: TOKEN_PROGRAM_ID })
    expect(byProgram.value.map((a) => a.pubkey.toBase58())).toEqual([destination.address.toBase58()])
    const raw = await connection.getTokenAccountsByOwner(receiver.publicKey, { mint })
    expect(raw.value[0].account.data.length).toBe(165)

    const supply = await connection.getTokenSupply(mint)
    expect(supply.value.amount).toBe("5000000")

    const tx = await connection.getTransaction(signature, { maxSupportedTransactionVersion: 0 })
    const post = tx?.meta?.postTokenBalances?.find((b) => b.owner === receiver.publicKey.toBase58())
    expect(post?.uiTokenAmount.amount).toBe("1250000")
    expect(tx?.meta?.preTokenBalances?.find((b) => b.owner === owner.publicKey.toBase58())?.uiTokenAmount.amount).toBe("5000000")
  })
})
