/**
 * x402_pay against the reference implementation, all on loopback: a resource server built with
 * @x402/express, a facilitator from @x402/core + @x402/svm settling on the real local ledger (posing as
 * devnet), and the service paying from a wallet under its policy. The payee gets exactly the required
 * amount, the result holds the resource; a blocklisted payee or an amount over the per-transaction limit
 * is denied before anything is signed, and the resource server never sees a payment. An x402 v1 server
 * (a few lines here: the reference express package serves v2) is paid through the same facilitator.
 */
import { generateKeyPairSigner } from "@solana/kit"
import { getAccount, getAssociatedTokenAddressSync } from "@solana/spl-token"
import { Connection, PublicKey } from "@solana/web3.js"
import { x402Facilitator } from "@x402/core/facilitator"
import type { FacilitatorClient } from "@x402/core/server"
import { paymentMiddleware, x402ResourceServer } from "@x402/express"
import { decodePaymentSignatureHeader, encodePaymentResponseHeader } from "@x402/core/http"
import type { PaymentPayload, PaymentRequirements } from "@x402/core/types"
import { toFacilitatorSvmSigner } from "@x402/svm"
import { registerExactSvmScheme } from "@x402/svm/exact/facilitator"
import { ExactSvmScheme } from "@x402/svm/exact/server"
import express from "express"
import type { Server } from "node:http"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { defined } from "../support/defined.js"

const DEVNET = "solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1"
const PRICE = 10_000n
const REPORT = { report: "quarterly figures", rows: [1, 2, 3] }

// The resource server and facilitator of this test listen on loopback, which x402_pay refuses by default.
// 50 ms slots: a payment that was not settled is proven not landed (blockhash expiry) within seconds.
const env = useServiceWithLedger({ env: { X402_ALLOW_PRIVATE_HOSTS: "true", TX_SETTLEMENT_SWEEP_MS: "200" }, ledger: { slotMs: 50 } })
const connection = () => new Connection(env.ledger.rpcUrl, "confirmed")

/** What the resource server saw: requests carrying a payment, and settlements it asked for. */
const seen = { paymentHeaders: 0, settlements: 0 }
/**
 * failNextSettle: the facilitator's next settlement fails (as a real one may after the payment left the payer).
 * loseNextPaidAnswer: the next answer to a paid request is lost after the settlement (the connection is reset).
 */
const faults = { failNextSettle: false, loseNextPaidAnswer: false }
let server: Server
let resourceUrl: string
let legacyUrl: string
const LEGACY_PRICE = 7_000n
let mint: string
let payee: { id: string; publicKey: string }

const run = async (body: Record<string, unknown>) => {
  const created = await submit(env.service.baseUrl, body)
  expect(created.status).toBe(201)
  return (await waitSettled(env.service.baseUrl, created.body.data.id, 60_000)).body
}

const tokenBalance = async (owner: string) => (await getAccount(connection(), getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner)))).amount

/** A wallet holding `amount` of the test mint and no SOL (the facilitator pays the fee). */
const payerWallet = async (issuerId: string, amount: string) => {
  const wallet = await createWallet(env.service.baseUrl)
  const minted = await run({ walletId: issuerId, type: "mint_token", protocol: "spl-token", intent: { mint, amount, destination: wallet.publicKey } })
  expect(minted.data.status).toBe("confirmed")
  return wallet
}

let issuerId: string

beforeAll(async () => {
  const issuer = await createWallet(env.service.baseUrl, 3_000_000_000)
  issuerId = issuer.id
  mint = (await run({ walletId: issuer.id, type: "create_mint", protocol: "spl-token", intent: { decimals: 6 } })).data.result?.mint as string
  payee = await createWallet(env.service.baseUrl)
  // The payee's token account exists (the exact scheme pays into it).
  await run({ walletId: issuer.id, type: "mint_token", protocol: "spl-token", intent: { mint, amount: "1", destination: payee.publicKey } })

  // The facilitator: its own key pays the fees, funded on the local ledger.
  const facilitatorKey = await generateKeyPairSigner()
  await connection().confirmTransaction(await connection().requestAirdrop(new PublicKey(facilitatorKey.address), 5_000_000_000), "confirmed")
  const facilitator = new x402Facilitator()
  registerExactSvmScheme(facilitator, { signer: toFacilitatorSvmSigner(facilitatorKey, { defaultRpcUrl: env.ledger.rpcUrl }), networks: DEVNET })
  const facilitatorClient: FacilitatorClient = {
    verify: (payload, requirements) => facilitator.verify(payload, requirements),
    settle: (payload, requirements) => {
      seen.settlements++
      if (faults.failNextSettle) {
        faults.failNextSettle = false
        return Promise.reject(new Error("facilitator unavailable"))
      }
      return facilitator.settle(payload, requirements)
    },
    // The facilitator answers its supported kinds synchronously with plain network strings; a client answers a promise.
    getSupported: async () => facilitator.getSupported() as Awaited<ReturnType<FacilitatorClient["getSupported"]>>
  }

  const resourceServer = new x402ResourceServer(facilitatorClient).register(DEVNET, new ExactSvmScheme())
  const app = express()
  app.use((request, response, next) => {
    if (request.header("payment-signature") !== undefined || request.header("x-payment") !== undefined) {
      seen.paymentHeaders++
      if (faults.loseNextPaidAnswer) {
        faults.loseNextPaidAnswer = false
        // The payment middleware ends the response only after settling: the payment lands, the answer is lost.
        response.end = ((..._args: Array<unknown>) => {
          request.socket.destroy()
          return response
        }) as typeof response.end
      }
    }
    next()
  })
  app.use(paymentMiddleware({ "GET /report": { accepts: { scheme: "exact", network: DEVNET, payTo: payee.publicKey, price: { amount: PRICE.toString(), asset: mint } }, description: "a report" } }, resourceServer))
  app.get("/report", (_request, response) => {
    response.json(REPORT)
  })
  // An older server speaking x402 v1 (@x402/express serves v2 only): requirements in the 402 body, the
  // payment in X-PAYMENT, the settlement in X-PAYMENT-RESPONSE; verified and settled by the same facilitator.
  app.get("/legacy", async (request, response) => {
    const requirement = {
      scheme: "exact", network: "solana-devnet", maxAmountRequired: LEGACY_PRICE.toString(), resource: legacyUrl, description: "a legacy report",
      mimeType: "application/json", payTo: payee.publicKey, maxTimeoutSeconds: 60, asset: mint, extra: { feePayer: facilitatorKey.address }
    }
    const header = request.header("x-payment")
    if (header === undefined) return void response.status(402).json({ x402Version: 1, error: "X-PAYMENT header is required", accepts: [requirement] })
    const payment = decodePaymentSignatureHeader(header) as PaymentPayload
    const requirements = requirement as unknown as PaymentRequirements
    const verified = await facilitatorClient.verify(payment, requirements)
    if (!verified.isValid) return void response.status(402).json({ x402Version: 1, error: verified.invalidReason, accepts: [requirement] })
    const settled = await facilitatorClient.settle(payment, requirements)
    if (!settled.success) return void response.status(402).json({ x402Version: 1, error: settled.errorReason, accepts: [requirement] })
    response.setHeader("X-PAYMENT-RESPONSE", encodePaymentResponseHeader(settled))
    response.json({ legacy: true, ...REPORT })
  })
  server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, "127.0.0.1", () => resolve(listening))
  })
  const address = server.address()
  const origin = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
  resourceUrl = `${origin}/report`
  legacyUrl = `${origin}/legacy`
}, 120_000)

afterAll(async () => {
  await new Promise<void>((resolve) => (server === undefined ? resolve() : server.close(() => resolve())))
})

describe("x402_pay", () => {
  it("pays the resource server exactly its price from the wallet and returns the resource", async () => {
    const payer = await payerWallet(issuerId, "50000")
    const payeeBefore = await tokenBalance(payee.publicKey)
    const paid = await run({ walletId: payer.id, type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "20000", asset: mint } })
    expect(paid.data.status).toBe("confirmed")
    expect(await tokenBalance(payee.publicKey)).toBe(payeeBefore + PRICE)
    expect(await tokenBalance(payer.publicKey)).toBe(50_000n - PRICE)
    expect(await connection().getBalance(new PublicKey(payer.publicKey))).toBe(0)

    const result = defined(paid.data.result, "the x402 result")
    expect(result.status).toBe(200)
    expect(JSON.parse(result.bodyExcerpt as string)).toEqual(REPORT)
    expect(result.bodyDigest).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(result.payment).toMatchObject({ scheme: "exact", network: DEVNET, payTo: payee.publicKey, asset: mint, amount: PRICE.toString(), x402Version: 2 })
    // The settlement signature is the transaction's, confirmed on the ledger, and it moved the tokens.
    expect(result.settlement).toMatchObject({ signature: paid.data.signature })
    const landed = await connection().getTransaction(paid.data.signature as string, { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
    expect(landed?.meta?.err).toBeNull()
    expect(landed?.transaction.message.staticAccountKeys.map((key) => key.toBase58())).toContain(payer.publicKey)
  })

  it("pays an x402 v1 server (requirements in the body, X-PAYMENT) through the same facilitator", async () => {
    const payer = await payerWallet(issuerId, "50000")
    const payeeBefore = await tokenBalance(payee.publicKey)
    const paid = await run({ walletId: payer.id, type: "x402_pay", protocol: "spl-token", intent: { url: legacyUrl, maxAmount: "7000" } })
    expect(paid.data.status).toBe("confirmed")
    expect(await tokenBalance(payee.publicKey)).toBe(payeeBefore + LEGACY_PRICE)
    expect(await tokenBalance(payer.publicKey)).toBe(50_000n - LEGACY_PRICE)
    const result = defined(paid.data.result, "the x402 result")
    expect(JSON.parse(result.bodyExcerpt as string)).toEqual({ legacy: true, ...REPORT })
    expect(result.payment).toMatchObject({ x402Version: 1, network: "solana-devnet", amount: LEGACY_PRICE.toString() })
    expect(result.settlement).toMatchObject({ signature: paid.data.signature })
  })

  it("denies a blocklisted payee and an amount over the per-transaction limit: nothing signed, no payment reaches the server", async () => {
    const blocked = await payerWallet(issuerId, "50000")
    await makeClient(env.service.baseUrl).policies.create({ body: { walletId: blocked.id, name: "no payee", rules: [{ type: "address_blocklist", addresses: [payee.publicKey] }] } })
    const limited = await payerWallet(issuerId, "50000")
    await makeClient(env.service.baseUrl).policies.create({ body: { walletId: limited.id, name: "cap", rules: [{ type: "spending_limit", maxLamportsPerTx: 5_000 }] } })
    const before = { ...seen }
    const payeeBefore = await tokenBalance(payee.publicKey)

    const denied = await run({ walletId: blocked.id, type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "20000" } })
    expect(denied).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(denied.error).toContain(payee.publicKey)
    const overLimit = await run({ walletId: limited.id, type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "20000" } })
    expect(overLimit).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(overLimit.error).toContain("maxLamportsPerTx")
    // Over the intent's own maximum: refused before signing as well.
    const payer = await payerWallet(issuerId, "50000")
    const overMax = await run({ walletId: payer.id, type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "9999" } })
    expect(overMax).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })

    expect(seen).toEqual(before)
    expect(await tokenBalance(payee.publicKey)).toBe(payeeBefore)
    for (const wallet of [blocked, limited, payer]) expect(await tokenBalance(wallet.publicKey)).toBe(50_000n)
  })

  it("an agent's x402_pay reserves maxAmount from its budget: over budget it is refused before anything is requested", async () => {
    const wallet = await payerWallet(issuerId, "50000")
    const created = await makeClient(env.service.baseUrl).agents.create({ body: {
      name: "reader", walletId: wallet.id, executionMode: "autonomous", allowedIntents: ["x402_pay"], allowedProtocols: ["spl-token"], budgetLamports: 15_000
    } })
    expect(created.status).toBe(201)
    const agentId = created.body.data.id as string
    const before = { ...seen }
    const overBudget = await makeClient(env.service.baseUrl).agents.execute({ params: { agentId }, body: { type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "20000" } } })
    expect(overBudget.status).toBe(403)
    expect(overBudget.body.errorCode).toBe("POLICY_VIOLATION")
    expect(seen).toEqual(before)
    const within = await makeClient(env.service.baseUrl).agents.execute({ params: { agentId }, query: { waitMs: "30000" }, body: { type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "12000" } } })
    expect(within.status).toBe(201)
    expect((await waitSettled(env.service.baseUrl, within.body.data.id as string, 60_000)).body.data.status).toBe("confirmed")
    expect(await tokenBalance(wallet.publicKey)).toBe(50_000n - PRICE)
  })

  it("a lost answer: the resource server settles and its answer is lost; the resumed run asks the chain first, finds the payment landed and confirms it without paying again", async () => {
    const payer = await payerWallet(issuerId, "50000")
    const before = { ...seen }
    faults.loseNextPaidAnswer = true
    const paid = await run({ walletId: payer.id, type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "20000" } })
    expect(paid).toMatchObject({ status: "success", data: { status: "confirmed", result: { paid: true, answerLost: true } } })
    // The settlement the chain found is the one recorded; the resource was asked (and paid) once.
    const landed = await connection().getTransaction(paid.data.signature ?? "", { commitment: "confirmed", maxSupportedTransactionVersion: 0 })
    expect(landed?.meta?.err).toBeNull()
    expect(paid.data.result).toMatchObject({ settlement: { signature: paid.data.signature } })
    expect(seen.paymentHeaders).toBe(before.paymentHeaders + 1)
    expect(seen.settlements).toBe(before.settlements + 1)
    expect(await tokenBalance(payer.publicKey)).toBe(50_000n - PRICE)
  })

  it("never pays twice for one transaction: a payment that left is failed only once the chain proves it did not land; only then does a retry pay, once", async () => {
    const payer = await payerWallet(issuerId, "50000")
    const before = { ...seen }
    faults.failNextSettle = true
    const failed = await run({ walletId: payer.id, type: "x402_pay", protocol: "spl-token", intent: { url: resourceUrl, maxAmount: "20000" } })
    expect(failed).toMatchObject({ status: "failure", errorCode: "CONFIRMATION_FAILED", failedAt: "confirm" })
    expect(failed.error).toMatch(/^not landed: blockhash expired at height \d+/)
    expect(failed.data.history.some((entry) => entry.message?.startsWith("unresolved: x402: the resource server did not settle the payment"))).toBe(true)
    expect(seen.paymentHeaders).toBe(before.paymentHeaders + 1)
    expect(seen.settlements).toBe(before.settlements + 1)
    expect(await tokenBalance(payer.publicKey)).toBe(50_000n)

    const retried = await makeClient(env.service.baseUrl).transactions.retry({ params: { txId: failed.data.id } })
    expect(retried.status).toBe(202)
    const again = (await waitSettled(env.service.baseUrl, failed.data.id, 60_000)).body
    expect(again).toMatchObject({ status: "success", data: { status: "confirmed", result: { paid: true } } })
    // One more payment reached the server, and the wallet paid the price exactly once.
    expect(seen.paymentHeaders).toBe(before.paymentHeaders + 2)
    expect(seen.settlements).toBe(before.settlements + 2)
    expect(await tokenBalance(payer.publicKey)).toBe(50_000n - PRICE)
  })
})
