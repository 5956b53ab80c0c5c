/**
 * The relay signs as fee payer only what costs its fee payer the fee (issue 31, feePayerEffect.ts): a
 * durable-nonce transaction, which passes every per-instruction check (System program, fee payer in no
 * instruction) but never expires, is refused with a reason and never sent; the same transfer on a recent
 * blockhash is signed and lands.
 */
import { Connection, Keypair, NONCE_ACCOUNT_LENGTH, PublicKey, SystemProgram, Transaction } from "@solana/web3.js"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_ALLOWED_PROGRAMS } from "../../src/gasless/gaslessRules.js"
import { startRelayServer, type RunningRelay } from "../../src/gasless/relay/relayServer.js"
import { feePayerRefusals } from "../../src/gasless/relay/feePayerEffect.js"
import type { TransactionEffect } from "../../schemas/effect.js"
import { freePort } from "../support/freePort.js"
import { startTestLedger } from "../support/ledger.js"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let relay: RunningRelay
const connection = () => new Connection(ledger.rpcUrl, "confirmed")

beforeAll(async () => {
  ledger = await startTestLedger()
  relay = await startRelayServer({ port: await freePort(), rpcUrl: ledger.rpcUrl, feePayerSeed: randomBytes(32), allowedPrograms: DEFAULT_ALLOWED_PROGRAMS, maxFeeLamports: 50_000n })
  await connection().confirmTransaction(await connection().requestAirdrop(new PublicKey(relay.feePayer), 5_000_000_000), "confirmed")
})

afterAll(async () => {
  await relay?.close()
  await ledger?.close()
})

const relayCall = async (method: string, transaction: Transaction) => {
  const response = await fetch(relay.url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { transaction: transaction.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64") } })
  })
  return (await response.json()) as { result?: { signature: string }; error?: { code: number; message: string } }
}

describe("the relay judges its fee payer's whole effect", () => {
  it("refuses a durable-nonce transaction and sends nothing; signs the same transfer on a recent blockhash", async () => {
    const user = Keypair.generate()
    const nonce = Keypair.generate()
    const to = Keypair.generate().publicKey
    await connection().confirmTransaction(await connection().requestAirdrop(user.publicKey, 2_000_000_000), "confirmed")
    const rent = await connection().getMinimumBalanceForRentExemption(NONCE_ACCOUNT_LENGTH)
    const { blockhash } = await connection().getLatestBlockhash()
    const create = new Transaction({ feePayer: user.publicKey, recentBlockhash: blockhash }).add(
      ...SystemProgram.createNonceAccount({ fromPubkey: user.publicKey, noncePubkey: nonce.publicKey, authorizedPubkey: user.publicKey, lamports: rent }).instructions
    )
    create.sign(user, nonce)
    await connection().confirmTransaction(await connection().sendRawTransaction(create.serialize()), "confirmed")
    const value = (await connection().getNonce(nonce.publicKey, "confirmed"))!.nonce

    const feePayer = new PublicKey(relay.feePayer)
    const transfer = SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: to, lamports: 1_000_000 })
    const durable = new Transaction({ feePayer, nonceInfo: { nonce: value, nonceInstruction: SystemProgram.nonceAdvance({ noncePubkey: nonce.publicKey, authorizedPubkey: user.publicKey }) } }).add(transfer)
    durable.partialSign(user)
    const refused = await relayCall("signAndSendTransaction", durable)
    expect(refused.error?.code).toBe(-32000)
    expect(refused.error?.message).toContain(`durable nonce ${nonce.publicKey.toBase58()}: the relay does not sign transactions that never expire`)
    expect(await connection().getBalance(to)).toBe(0)
    expect((await connection().getNonce(nonce.publicKey, "confirmed"))?.nonce).toBe(value)

    const recent = new Transaction({ feePayer, recentBlockhash: (await connection().getLatestBlockhash()).blockhash }).add(transfer)
    recent.partialSign(user)
    const sent = await relayCall("signAndSendTransaction", recent)
    expect(sent.error).toBeUndefined()
    await connection().confirmTransaction(sent.result!.signature, "confirmed")
    expect(await connection().getBalance(to)).toBe(1_000_000)
  })

  it("refuses a fee payer that would lose more than the fee, or whose account would change hands", () => {
    const feePayer = "4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T"
    const effect: TransactionEffect = {
      wallet: feePayer, feePayer, feeLamports: 5_000n, sol: { beforeLamports: 1_000_000n, afterLamports: 895_000n }, solOutflowLamports: 105_000n,
      tokenChanges: [], tokenOutflows: [], recipients: [], closedAccounts: [], programs: [], instructions: [],
      controlChanges: [{ account: feePayer, kind: "owner_program", from: SystemProgram.programId.toBase58(), to: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" }]
    }
    expect(feePayerRefusals(effect, new Set())).toEqual([
      "the fee payer would lose 105000 lamports, more than the fee 5000",
      "the transaction would assign the wallet's account to program TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA (the wallet would lose its SOL and could never pay a fee again)"
    ])
    expect(feePayerRefusals({ ...effect, solOutflowLamports: 5_000n, controlChanges: [] }, new Set())).toEqual([])
  })
})
