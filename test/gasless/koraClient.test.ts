/**
 * The relay answers Kora's own client (`@solana/kora`, written by Kora's authors): getConfig,
 * getPayerSigner, getBlockhash, getSupportedTokens, estimateTransactionFee, signTransaction and
 * signAndSendTransaction against a real ledger; it refuses what it must not pay for.
 */
// Kora's client module itself: the package's index also loads its kit plugins, written for @solana/kit 6
// (they import createEmptyClient, which kit 8 of this project no longer has); the client needs neither.
import { KoraClient } from "@solana/kora/dist/src/client.js"
import { Connection, Keypair, PublicKey, SystemProgram, Transaction } from "@solana/web3.js"
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { DEFAULT_ALLOWED_PROGRAMS } from "../../src/gasless/gaslessRules.js"
import { startRelayServer, type RunningRelay } from "../../src/gasless/relay/relayServer.js"
import { freePort } from "../support/freePort.js"
import { startTestLedger } from "../support/ledger.js"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let relay: RunningRelay
let kora: KoraClient
const connection = () => new Connection(ledger.rpcUrl, "confirmed")

beforeAll(async () => {
  ledger = await startTestLedger()
  relay = await startRelayServer({ port: await freePort(), rpcUrl: ledger.rpcUrl, feePayerSeed: randomBytes(32), allowedPrograms: DEFAULT_ALLOWED_PROGRAMS, maxFeeLamports: 50_000n })
  await connection().confirmTransaction(await connection().requestAirdrop(new PublicKey(relay.feePayer), 5_000_000_000), "confirmed")
  kora = new KoraClient({ rpcUrl: relay.url })
})

afterAll(async () => {
  await relay?.close()
  await ledger?.close()
})

/** A transfer from `user` whose fee the relay pays, signed by the user only (base64 wire bytes). */
const userTransfer = async (user: Keypair, to: PublicKey, lamports: number, feePayer = new PublicKey(relay.feePayer)) => {
  const { blockhash } = await kora.getBlockhash()
  const tx = new Transaction({ feePayer, recentBlockhash: blockhash }).add(SystemProgram.transfer({ fromPubkey: user.publicKey, toPubkey: to, lamports }))
  tx.partialSign(user)
  return tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64")
}

const fundedUser = async () => {
  const user = Keypair.generate()
  await connection().confirmTransaction(await connection().requestAirdrop(user.publicKey, 1_000_000_000), "confirmed")
  return user
}

describe("the relay through @solana/kora's client", () => {
  it("getConfig and getPayerSigner name the relay's fee payer; getSupportedTokens answers a list", async () => {
    const config = await kora.getConfig()
    expect(config.fee_payers).toEqual([relay.feePayer])
    expect(config.validation_config.max_allowed_lamports).toBe(50_000)
    expect(config.validation_config.allowed_programs).toContain(SystemProgram.programId.toBase58())
    expect(config.enabled_methods.sign_and_send_transaction).toBe(true)
    const payer = await kora.getPayerSigner()
    expect(payer.signer_address).toBe(relay.feePayer)
    expect(Array.isArray((await kora.getSupportedTokens()).tokens)).toBe(true)
  })

  it("estimateTransactionFee prices a transaction; signAndSendTransaction lands it with the relay paying the fee", async () => {
    const user = await fundedUser()
    const receiver = Keypair.generate().publicKey
    const transaction = await userTransfer(user, receiver, 2_000_000)
    const estimate = await kora.estimateTransactionFee({ transaction, fee_token: "So11111111111111111111111111111111111111112" })
    expect(estimate.fee_in_lamports).toBe(10_000) // two signatures, no priority fee
    expect(estimate.signer_pubkey).toBe(relay.feePayer)

    const relayBefore = await connection().getBalance(new PublicKey(relay.feePayer))
    const sent = await kora.signAndSendTransaction({ transaction, sig_verify: true })
    expect(sent.signer_pubkey).toBe(relay.feePayer)
    let landed = null
    for (let i = 0; i < 100 && landed === null; i++) {
      landed = await connection().getTransaction(sent.signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
      if (landed === null) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(landed?.meta?.err).toBeNull()
    expect(await connection().getBalance(receiver)).toBe(2_000_000)
    expect(await connection().getBalance(user.publicKey)).toBe(1_000_000_000 - 2_000_000)
    expect(relayBefore - (await connection().getBalance(new PublicKey(relay.feePayer)))).toBe(landed?.meta?.fee)
  })

  it("signTransaction signs without sending; refusals name the reason", async () => {
    const user = await fundedUser()
    const signed = await kora.signTransaction({ transaction: await userTransfer(user, Keypair.generate().publicKey, 1_000_000) })
    expect(signed.signer_pubkey).toBe(relay.feePayer)
    const bytes = Buffer.from(signed.signed_transaction, "base64")
    expect(bytes.subarray(1, 65).some((byte) => byte !== 0)).toBe(true) // the fee payer's signature is in place

    // The relay's key as the source of a transfer: it only pays fees.
    const drain = new Transaction({ feePayer: new PublicKey(relay.feePayer), recentBlockhash: (await kora.getBlockhash()).blockhash }).add(
      SystemProgram.transfer({ fromPubkey: new PublicKey(relay.feePayer), toPubkey: user.publicKey, lamports: 1 })
    )
    const drainWire = drain.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64")
    await expect(kora.signAndSendTransaction({ transaction: drainWire })).rejects.toThrow(/fee payer's account/)

    // An account creation needing rent.
    const created = Keypair.generate()
    const create = new Transaction({ feePayer: new PublicKey(relay.feePayer), recentBlockhash: (await kora.getBlockhash()).blockhash }).add(
      SystemProgram.createAccount({ fromPubkey: user.publicKey, newAccountPubkey: created.publicKey, lamports: 1_000_000, space: 0, programId: SystemProgram.programId })
    )
    create.partialSign(user, created)
    const createWire = create.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64")
    await expect(kora.signAndSendTransaction({ transaction: createWire })).rejects.toThrow(/rent deposit/)

    // A transaction whose fee payer is someone else.
    await expect(kora.signTransaction({ transaction: await userTransfer(user, created.publicKey, 1, user.publicKey) })).rejects.toThrow(/fee payer/)
    expect(await connection().getAccountInfo(created.publicKey)).toBeNull()
  })
})
