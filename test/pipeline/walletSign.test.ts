/**
 * POST /wallets/<id>/sign under policy: a transaction handed in is simulated, its outflow evaluated
 * and counted, and signed only when allowed (the signature verifies and the transaction lands when
 * submitted); a message is signed only as an off-chain message, never when it is a transaction message.
 */
import { Connection, Keypair, PublicKey, SystemProgram, Transaction, VersionedTransaction } from "@solana/web3.js"
import { createPublicKey, verify } from "node:crypto"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { api } from "../support/service.js"
import { createWallet } from "../support/transactions.js"
import { defined } from "../support/defined.js"
import type { SignAnswer } from "../support/undeclaredAnswers.js"
import type { PolicyRuleEncoded } from "../../schemas/policy.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)

const unsignedTransfer = async (from: string, lamports: number, to = Keypair.generate().publicKey) => {
  const { blockhash } = await new Connection(env.ledger.rpcUrl).getLatestBlockhash()
  const tx = new Transaction({ feePayer: new PublicKey(from), recentBlockhash: blockhash }).add(
    SystemProgram.transfer({ fromPubkey: new PublicKey(from), toPubkey: to, lamports })
  )
  return { base64: tx.serialize({ requireAllSignatures: false, verifySignatures: false }).toString("base64"), message: tx.serializeMessage(), to }
}

const sign = (walletId: string, body: Record<string, unknown>) => api<SignAnswer>(env.service.baseUrl, "POST", `/api/v1/wallets/${walletId}/sign`, body)

const ed25519Verifies = (publicKey: string, message: Uint8Array, signatureBase64: string) => {
  const spki = Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), new PublicKey(publicKey).toBuffer()])
  return verify(null, message, createPublicKey({ key: spki, format: "der", type: "spki" }), Buffer.from(signatureBase64, "base64"))
}

const policy = (walletId: string, rules: ReadonlyArray<PolicyRuleEncoded>) =>
  client().policies.create({ body: { walletId, name: "sign limits", rules } })

describe("POST /wallets/<id>/sign", () => {
  it("refuses a transfer over the per-transaction limit and signs nothing; signs an allowed one, which lands when submitted", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    expect((await policy(wallet.id, [{ type: "spending_limit", maxLamportsPerTx: 2_000_000 }])).status).toBe(201)
    const connection = new Connection(env.ledger.rpcUrl)

    const big = await unsignedTransfer(wallet.publicKey, 3_000_000)
    const refused = await sign(wallet.id, { transaction: big.base64 })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(refused.body.data).toMatchObject({ type: "sign_transaction", status: "failed" })
    expect(refused.body.data.result ?? null).toBeNull()
    expect(refused.body.data.signedTransaction ?? null).toBeNull()

    const small = await unsignedTransfer(wallet.publicKey, 1_500_000)
    const signed = await sign(wallet.id, { transaction: small.base64 })
    expect(signed.status).toBe(200)
    expect(signed.body.data.publicKey).toBe(wallet.publicKey)
    expect(ed25519Verifies(wallet.publicKey, small.message, signed.body.data.signature)).toBe(true)
    // Exactly the bytes handed in: the signed transaction carries the same message.
    const signedTransaction = defined(signed.body.data.signedTransaction, "the signed transaction")
    const wire = VersionedTransaction.deserialize(Buffer.from(signedTransaction, "base64"))
    expect(Buffer.from(wire.message.serialize()).equals(small.message)).toBe(true)
    expect(Buffer.from(wire.signatures[0]!).toString("base64")).toBe(signed.body.data.signature)

    const landed = await connection.sendRawTransaction(Buffer.from(signedTransaction, "base64"))
    await connection.confirmTransaction(landed, "confirmed")
    expect(await connection.getBalance(small.to)).toBe(1_500_000)
    expect(await connection.getBalance(big.to)).toBe(0)

    // Recorded with its decision, audit events and a proof.
    const record = await client().transactions.get({ params: { txId: signed.body.data.txId } })
    expect(record.body.data).toMatchObject({ status: "confirmed", policyDecision: { decision: "allow" } })
    expect(record.body.data.executionProof?.proofHash).toMatch(/^[0-9a-f]{64}$/)
    const events = await client().audit.list({ query: { txId: signed.body.data.txId } })
    expect(events.body.data.events.map((e: { eventType: string }) => e.eventType)).toEqual(expect.arrayContaining(["transaction.policy_evaluated", "transaction.signed"]))
  })

  it("refuses to sign from an agent's wallet: the agent's checks apply and its budget cannot be bypassed", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const agent = await client().agents.create({ body: { name: "signer-test", walletId: wallet.id, budgetLamports: 1_000_000 } })
    expect(agent.status).toBe(201)
    const refused = await sign(wallet.id, { transaction: (await unsignedTransfer(wallet.publicKey, 5_000_000)).base64 })
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION" })
    expect(refused.body.error).toContain("allowedIntents")
    const listed = await client().transactions.listByWallet({ params: { walletId: wallet.id } })
    expect(listed.body.data.total).toBe(0)
  })

  it("counts signed transfers in the daily spend", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    expect((await policy(wallet.id, [{ type: "spending_limit", maxLamportsPerDay: 2_500_000 }])).status).toBe(201)
    expect((await sign(wallet.id, { transaction: (await unsignedTransfer(wallet.publicKey, 1_000_000)).base64 })).status).toBe(200)
    expect((await sign(wallet.id, { transaction: (await unsignedTransfer(wallet.publicKey, 1_000_000)).base64 })).status).toBe(200)
    const third = await sign(wallet.id, { transaction: (await unsignedTransfer(wallet.publicKey, 1_000_000)).base64 })
    expect(third.status).toBe(403)
    expect(third.body.error).toContain("today's spend 2010000")
    expect(third.body.error).toContain("maxLamportsPerDay")
    // The same counter holds for the pipeline's own transfers.
    const viaPipeline = await client().transactions.create({ query: { waitMs: "10000" }, body: {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 }
    } })
    expect(viaPipeline.body.errorCode).toBe("POLICY_VIOLATION")
  })

  it("answers a repeated signing with an idempotencyKey with the first one, its spend counted once", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    expect((await policy(wallet.id, [{ type: "spending_limit", maxLamportsPerDay: 1_500_000 }])).status).toBe(201)
    const body = { transaction: (await unsignedTransfer(wallet.publicKey, 1_000_000)).base64, idempotencyKey: `sign-${wallet.id}` }
    const first = await sign(wallet.id, body)
    expect(first.status).toBe(200)
    // Sent again (say its answer was lost): the same signing, not a second one over the daily limit.
    const again = await sign(wallet.id, body)
    expect(again.status).toBe(200)
    expect(again.body.data).toEqual(first.body.data)
    const other = await sign(wallet.id, { ...body, transaction: (await unsignedTransfer(wallet.publicKey, 1_000)).base64 })
    expect(other.status).toBe(400)
    expect(other.body.error).toMatch(/^idempotencyKey: .* was already used for transaction .* with a different request/)
  })

  it("signs a message as an off-chain message, and refuses a message that is a transaction message", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const text = Buffer.from("log me in to example.com, nonce 42")
    const signed = await sign(wallet.id, { message: text.toString("base64") })
    expect(signed.status).toBe(200)
    const signedMessage = Buffer.from(defined(signed.body.data.signedMessage, "the signed message"), "base64")
    expect(signedMessage.subarray(0, 16).equals(Buffer.concat([Buffer.from([0xff]), Buffer.from("solana offchain")]))).toBe(true)
    expect(signedMessage.subarray(signedMessage.length - text.length).equals(text)).toBe(true)
    expect(ed25519Verifies(wallet.publicKey, signedMessage, signed.body.data.signature)).toBe(true)
    expect(ed25519Verifies(wallet.publicKey, text, signed.body.data.signature)).toBe(false)

    const before = (await client().transactions.listByWallet({ params: { walletId: wallet.id } })).body.data.total
    const transfer = await unsignedTransfer(wallet.publicKey, 1_000_000)
    for (const bytes of [transfer.message, Buffer.from(transfer.base64, "base64")]) {
      const refused = await sign(wallet.id, { message: bytes.toString("base64") })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toContain("message")
    }
    const both = await sign(wallet.id, { message: text.toString("base64"), transaction: transfer.base64 })
    expect(both.status).toBe(400)
    const neither = await sign(wallet.id, {})
    expect(neither.status).toBe(400)
    expect((await client().transactions.listByWallet({ params: { walletId: wallet.id } })).body.data.total).toBe(before)
  })

  it("puts message signing under policy: a protocol allowlist without `wallet` refuses it", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    expect((await policy(wallet.id, [{ type: "protocol_allowlist", protocols: ["system-program"] }])).status).toBe(201)
    const refused = await sign(wallet.id, { message: Buffer.from("hello").toString("base64") })
    expect(refused.status).toBe(403)
    expect(refused.body.errorCode).toBe("POLICY_VIOLATION")
  })

  it("refuses a transaction whose fee payer is not the wallet", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const other = await unsignedTransfer(Keypair.generate().publicKey.toBase58(), 1_000_000)
    const refused = await sign(wallet.id, { transaction: other.base64 })
    expect(refused.status).toBe(400)
    expect(refused.body.error).toContain("fee payer")
  })
})
