/**
 * transfer_sol end to end over HTTP against the real ledger: confirmed, the signature on the ledger,
 * both balances moved by the exact amount (and fees), history in the spec's order, and the proof
 * recomputes from /replay.
 */
import { Connection, PublicKey, Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { canonicalJson, sha256Hex } from "../../src/pipeline/proof.js"
import { dataOf, makeClient } from "../support/client.js"
import { defined } from "../support/defined.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger()
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")
const client = () => makeClient(env.service.baseUrl)

describe("transfer_sol through the pipeline", () => {
  it("confirms on the ledger with exact balances, ordered history and a proof that recomputes", async () => {
    const source = await createWallet(env.service.baseUrl, 2_000_000_000)
    const destination = await createWallet(env.service.baseUrl, 1_000_000_000)
    const before = await connection().getBalance(new PublicKey(destination.publicKey))

    const created = await submit(env.service.baseUrl, {
      walletId: source.id, type: "transfer_sol", protocol: "system-program",
      intent: { destination: destination.publicKey, lamports: 250_000_000 }
    })
    expect(created.status).toBe(201)
    expect(created.body.status).toBe("success")
    const settled = await waitSettled(env.service.baseUrl, created.body.data.id)
    const tx = settled.data
    expect(settled.body.status).toBe("success")
    expect(tx.status).toBe("confirmed")
    expect(tx.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/)
    const signature = defined(tx.signature, "the signature")

    const { value: [status] } = await connection().getSignatureStatuses([signature], { searchTransactionHistory: true })
    expect(status?.err).toBeNull()

    const after = await connection().getBalance(new PublicKey(destination.publicKey))
    expect(after - before).toBe(250_000_000)
    const onChain = await connection().getTransaction(signature, { maxSupportedTransactionVersion: 0 })
    const fee = onChain!.meta!.fee
    expect(defined(tx.preBalanceLamports, "preBalanceLamports") - defined(tx.postBalanceLamports, "postBalanceLamports")).toBe(250_000_000n + BigInt(fee))
    expect(tx.deltaGuard?.ok).toBe(true)

    expect(tx.history.map((h) => h.status)).toEqual([
      "pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"
    ])

    const replay = dataOf(await client().transactions.replay({ params: { txId: tx.id } }))
    const proof = dataOf(await client().transactions.proof({ params: { txId: tx.id } }))
    expect(replay.proof).toEqual(proof)
    const intentHash = sha256Hex(canonicalJson(replay.request.intent))
    const policyHash = sha256Hex(canonicalJson(replay.policyDecision))
    const simulationHash = sha256Hex(canonicalJson(replay.simulation))
    expect({ intentHash, policyHash, simulationHash }).toEqual({
      intentHash: proof.intentHash, policyHash: proof.policyHash, simulationHash: proof.simulationHash
    })
    expect(proof.signature).toBe(tx.signature)
    expect(sha256Hex([intentHash, policyHash, simulationHash, tx.signature].join("|"))).toBe(proof.proofHash)
  })

  it("fails at build for a sub-rent transfer to a new account, and at simulation for insufficient funds", async () => {
    const source = await createWallet(env.service.baseUrl, 1_000_000_000)
    const fresh = Keypair.generate().publicKey.toBase58()
    const subRent = await submit(env.service.baseUrl, { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination: fresh, lamports: 890_879 } }, undefined, "?waitMs=10000")
    expect(subRent.body.data.status).toBe("failed")
    expect(subRent.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(subRent.body.error).toContain("rent-exempt minimum")

    const tooMuch = await submit(env.service.baseUrl, { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination: fresh, lamports: 5_000_000_000 } }, undefined, "?waitMs=10000")
    expect(tooMuch.body.data.status).toBe("failed")
    expect(tooMuch.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build" })
    expect(tooMuch.body.error).toMatch(/insufficient/i)
    const proof = dataOf(await client().transactions.proof({ params: { txId: tooMuch.body.data.id } }))
    expect(proof.simulationHash).toMatch(/^[0-9a-f]{64}$/)
  })

  it("refuses an invalid request with a 400 naming the field and records nothing", async () => {
    const source = await createWallet(env.service.baseUrl)
    const list = async () => dataOf(await client().transactions.listByWallet({ params: { walletId: source.id } })).total
    for (const [intent, field] of [[{ destination: "nope", lamports: 1 }, "intent.destination"], [{ destination: source.publicKey, lamports: -1 }, "intent.lamports"], [{ destination: source.publicKey }, "intent.lamports"]] as const) {
      const refused = await submit(env.service.baseUrl, { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toContain(field)
    }
    const strangerAgent = await submit(env.service.baseUrl, { walletId: source.id, agentId: "00000000-0000-4000-8000-000000000000", type: "transfer_sol", protocol: "system-program", intent: { destination: source.publicKey, lamports: 1 } })
    expect(strangerAgent.status).toBe(404)
    expect(strangerAgent.body.error).toContain("agent")
    const badType = await submit(env.service.baseUrl, { walletId: source.id, type: "teleport", protocol: "system-program", intent: {} })
    expect(badType.status).toBe(400)
    expect(badType.body.error).toContain("type")
    expect(await list()).toBe(0)
  })

  it("returns the original record for a reused idempotency key and refuses it with another body", async () => {
    const source = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const body = { walletId: source.id, type: "transfer_sol", protocol: "system-program", idempotencyKey: "order-1", intent: { destination, lamports: 1_000_000 } }
    const first = await submit(env.service.baseUrl, body)
    const again = await submit(env.service.baseUrl, body)
    expect(again.body.data.id).toBe(first.body.data.id)
    const other = await submit(env.service.baseUrl, { ...body, intent: { destination, lamports: 2_000_000 } })
    expect(other.status).toBe(400)
    expect(other.body.error).toContain("idempotencyKey")
    const listed = dataOf(await client().transactions.listByWallet({ params: { walletId: source.id } }))
    expect(listed.total).toBe(1)
  })

  it("confirms two identical transfers sent at once as two transfers", async () => {
    const source = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const body = { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_000_000 } }
    const [first, second] = await Promise.all([submit(env.service.baseUrl, body), submit(env.service.baseUrl, body)])
    const settled = await Promise.all([first, second].map((c) => waitSettled(env.service.baseUrl, c.body.data.id)))
    expect(settled.map((s) => s.body.data.status)).toEqual(["confirmed", "confirmed"])
    expect(settled[0].body.data.signature).not.toBe(settled[1].body.data.signature)
    expect(await connection().getBalance(new PublicKey(destination))).toBe(2_000_000)
  })

  it("builds identical transfers on one blockhash with distinct compute-unit prices instead of waiting for a new blockhash", async () => {
    const source = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const body = { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_000_000 } }
    const created = await Promise.all([0, 1, 2].map(() => submit(env.service.baseUrl, body, undefined, "")))
    expect(created.map((c) => c.body.data.status)).toEqual(["confirmed", "confirmed", "confirmed"])
    const signatures = created.map((c) => c.body.data.signature as string)
    expect(new Set(signatures).size).toBe(3)
    expect(await connection().getBalance(new PublicKey(destination))).toBe(3_000_000)
    const landed = await Promise.all(signatures.map((signature) => connection().getTransaction(signature, { commitment: "confirmed", maxSupportedTransactionVersion: 0 })))
    const messages = landed.map((tx) => tx!.transaction.message)
    // Instruction 1 is SetComputeUnitPrice: [3, u64 microlamports LE].
    const prices = messages.map((message) => Buffer.from(message.compiledInstructions[1]!.data).readBigUInt64LE(1))
    expect(new Set(messages.map((message) => message.recentBlockhash)).size).toBe(1)
    expect(new Set(prices.map(String)).size).toBe(3)
    expect(prices.map((p) => p - prices.reduce((m, x) => (x < m ? x : m)))).toEqual(expect.arrayContaining([0n, 1n, 2n]))
  })

  it("refuses a transfer to the wallet itself at build, saying why, and moves nothing", async () => {
    const source = await createWallet(env.service.baseUrl, 1_000_000_000)
    const before = await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(source.publicKey))
    const created = await submit(env.service.baseUrl, { walletId: source.id, type: "transfer_sol", protocol: "system-program", intent: { destination: source.publicKey, lamports: 1_000_000 } }, undefined, "")
    expect(created.status).toBe(500)
    expect(created.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build", data: { status: "failed" } })
    expect(created.body.error).toContain("intent.destination is the wallet's own address")
    expect(await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(source.publicKey))).toBe(before)
  })

  it("answers query_balance with a result and no signature", async () => {
    const source = await createWallet(env.service.baseUrl, 1_000_000_000)
    const created = await submit(env.service.baseUrl, { walletId: source.id, type: "query_balance", protocol: "system-program", intent: {} }, undefined, "?waitMs=10000")
    expect(created.body.data.status).toBe("confirmed")
    expect(created.data?.result?.lamports).toBe(1_000_000_000)
    expect(created.body.data.signature).toBeUndefined()
    expect(created.body.data.policyDecision).toBeUndefined()
  })
})
