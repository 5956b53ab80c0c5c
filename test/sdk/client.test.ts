/**
 * The SDK against the real service (issue 32): typed answers, create-and-wait to confirmation, a failed
 * transaction as a record, typed errors with the spec's retry guidance, idempotency keys that make a retried
 * create safe (one transaction when the first answer was lost), a 429 waited out, approvals, and the stage
 * stream as an async iterator, webhook subscriptions (a lost create answer, a rotate).
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { CustodyClient, CustodyError, type StageEvent } from "../../sdk/src/index.js"
import { useServiceWithLedger } from "../support/harness.js"
import { ADMIN_KEY } from "../support/service.js"
import { waitFor } from "../support/wait.js"
import { startWebhookReceiver } from "../webhooks/webhookReceiver.js"

const env = useServiceWithLedger({ env: { AGENT_SCHEDULER_ENABLED: "false" } })
const custody = (options: { fetch?: typeof fetch } = {}) => new CustodyClient({ baseUrl: env.service.baseUrl, apiKey: ADMIN_KEY, retry: { baseDelayMs: 20 }, ...options })
const destination = () => Keypair.generate().publicKey.toBase58()
const balanceOf = (address: string) => new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(address))

/** A fetch whose first `method` request to a path containing `path` reaches the service but whose answer never comes back. */
const answerLostOnce = (path: string, method = "POST") => {
  let lost = 0
  const losingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (init?.method === method && String(input).includes(path) && lost === 0) {
      lost++
      await response.text()
      throw new TypeError("fetch failed: the connection dropped")
    }
    return response
  }
  return { fetch: losingFetch, lost: () => lost }
}

describe("the SDK", () => {
  it("creates a wallet and a transfer and waits for its confirmation", async () => {
    const wallet = await custody().wallets.create({ label: "sdk", autoFund: true, fundLamports: 1_000_000_000 })
    const to = destination()
    const tx = await custody().transactions.createAndWait({ walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: to, lamports: 2_000_000 } })
    expect(tx).toMatchObject({ status: "confirmed", type: "transfer_sol", walletId: wallet.id })
    expect(tx.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/)
    expect(await balanceOf(to)).toBe(2_000_000)
    expect((await custody().transactions.proof(tx.id)).txId).toBe(tx.id)
  })

  it("answers a failed transaction as its record, and a refusal as a CustodyError with the spec's guidance", async () => {
    const empty = await custody().wallets.create({ label: "sdk empty" })
    const failed = await custody().transactions.createAndWait({ walletId: empty.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 5_000_000 } })
    expect(failed).toMatchObject({ status: "failed", errorCode: "PIPELINE_ERROR", failedAt: "build" })

    const missing = await custody().wallets.get("00000000-0000-4000-8000-000000000000").catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(CustodyError)
    expect(missing).toMatchObject({ httpStatus: 404, errorCode: "VALIDATION_ERROR", failedAt: "validation", guidance: "do-not-retry", traceId: expect.stringMatching(/^[0-9a-f-]{36}$/) })

    const capped = await custody().wallets.create({ label: "sdk capped", autoFund: true, fundLamports: 1_000_000_000 })
    const policy = await custody().policies.create({ walletId: capped.id, name: "cap", rules: [{ type: "spending_limit", maxLamportsPerTx: 1 }] })
    expect(policy).toMatchObject({ version: 1, active: true })
    const denied = await custody().transactions.create({ walletId: capped.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 5_000_000 } })
    expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION" })
  })

  it("makes a retried create safe: the first answer lost, the retry with the same key answers the one transaction", async () => {
    const wallet = await custody().wallets.create({ label: "sdk retry", autoFund: true, fundLamports: 1_000_000_000 })
    const losing = answerLostOnce("/api/v1/transactions")
    const tx = await custody({ fetch: losing.fetch }).transactions.createAndWait({
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 1_000_000 }
    })
    expect(losing.lost()).toBe(1)
    expect(tx.status).toBe("confirmed")
    const listed = await custody().transactions.listByWallet(wallet.id)
    expect(listed.transactions.map((t) => t.id)).toEqual([tx.id])
  })

  it("makes a retried wallet create safe: the first answer lost, the retry with the same key answers the one wallet, funded once", async () => {
    const before = (await custody().wallets.list({ limit: 1 })).total
    const losing = answerLostOnce("/api/v1/wallets")
    const wallet = await custody({ fetch: losing.fetch }).wallets.create({ label: "sdk keyed", autoFund: true, fundLamports: 3_000_000 })
    expect(losing.lost()).toBe(1)
    expect(wallet.label).toBe("sdk keyed")
    expect((await custody().wallets.list({ limit: 1 })).total).toBe(before + 1)
    expect(await balanceOf(wallet.publicKey)).toBe(3_000_000)
  })

  it("subscribes a webhook whose first answer is lost: one subscription, its secret verifies the deliveries; a rotate's secret takes over", async () => {
    const receiver = await startWebhookReceiver()
    try {
      const losing = answerLostOnce("/api/v1/webhooks")
      const hook = await custody({ fetch: losing.fetch }).webhooks.create({ url: receiver.url, eventTypes: ["transaction.confirmed"] })
      expect(losing.lost()).toBe(1)
      expect(hook.secret).toMatch(/^whsec_/)
      expect((await custody().webhooks.list()).webhooks.filter((w) => w.url === receiver.url).map((w) => w.id)).toEqual([hook.id])

      receiver.setSecrets([hook.secret])
      const wallet = await custody().wallets.create({ autoFund: true, fundLamports: 1_000_000_000 })
      const paid = await custody().transactions.createAndWait({ walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 1_000_000 } })
      await waitFor("the confirmation delivered", () => receiver.accepted().some((a) => a.payload?.data.txId === paid.id), 20_000)

      const rotated = await custody().webhooks.rotateSecret(hook.id)
      expect(rotated.secret).not.toBe(hook.secret)
      receiver.setSecrets([rotated.secret])
      const again = await custody().transactions.createAndWait({ walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 1_000_000 } })
      await waitFor("the next confirmation delivered under the new secret", () => receiver.accepted().some((a) => a.payload?.data.txId === again.id), 20_000)
      expect(receiver.attempts.every((a) => a.verified)).toBe(true)
      // (a delivery is marked delivered once the receiver's answer is back: wait for it, not for the receiver)
      await waitFor("both deliveries marked delivered", async () => (await custody().webhooks.deliveries(hook.id, { status: "delivered" })).deliveries.length === 2, 10_000)
      // a delete whose answer is lost: a read finds it gone, so it is done (not a 404 thrown for its own success)
      const losingDelete = answerLostOnce(`/api/v1/webhooks/${hook.id}`, "DELETE")
      expect(await custody({ fetch: losingDelete.fetch }).webhooks.delete(hook.id)).toEqual({ id: hook.id, deleted: true })
      expect(losingDelete.lost()).toBe(1)
      await expect(custody().webhooks.get(hook.id)).rejects.toMatchObject({ httpStatus: 404 })
    } finally {
      await receiver.close()
    }
  })

  it("makes a retried treasury move safe: the first answer lost, the retry with the same key answers the one move", async () => {
    const agent = await custody().agents.create({ name: "sdk treasury", budgetLamports: 1_000 })
    const losing = answerLostOnce("/api/v1/treasury/allocate")
    const allocation = await custody({ fetch: losing.fetch }).treasury.allocate({ targetAgentId: agent.id, lamports: 500 })
    expect(losing.lost()).toBe(1)
    expect(allocation).toMatchObject({ targetAgentId: agent.id, lamports: 500, targetBudgetBefore: 1_000, targetBudgetAfter: 1_500 })
    expect((await custody().agents.budget(agent.id)).budgetLamports).toBe(1_500)
  })

  it("waits out a 429 until the reset the service names", async () => {
    let limited = 0
    const limitedOnce: typeof fetch = async (input, init) => {
      if (limited++ === 0) {
        const envelope = { status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "gateway", stage: "gateway", traceId: crypto.randomUUID(), data: null, error: "Rate limit exceeded" }
        return new Response(JSON.stringify(envelope), { status: 429, headers: { "x-ratelimit-reset": String(Math.ceil(Date.now() / 1000)) } })
      }
      return fetch(input, init)
    }
    const wallet = await custody({ fetch: limitedOnce }).wallets.create({ label: "sdk limited" })
    expect(limited).toBe(2)
    expect(wallet.label).toBe("sdk limited")
  })

  it("stops at the approval gate, lists it, approves it to confirmation; rejects another", async () => {
    const wallet = await custody().wallets.create({ label: "sdk approvals", autoFund: true, fundLamports: 1_000_000_000 })
    await custody().policies.create({ walletId: wallet.id, name: "approve", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 1 }] })
    const waiting = await custody().transactions.createAndWait({ walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 3_000_000 } })
    expect(waiting.status).toBe("approval_gate")
    expect((await custody().transactions.pendingApprovals(wallet.id)).transactions.map((t) => t.id)).toEqual([waiting.id])
    await custody().transactions.approve(waiting.id)
    expect((await custody().transactions.wait(waiting.id)).status).toBe("confirmed")
    const other = await custody().transactions.createAndWait({ walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 3_000_000 } })
    expect((await custody().transactions.reject(other.id, "not this one")).status).toBe("failed")
  })

  it("streams a transaction's stages as an async iterator, in order, to its outcome", async () => {
    const wallet = await custody().wallets.create({ label: "sdk stream", autoFund: true, fundLamports: 1_000_000_000 })
    const stream = await custody().stream({ walletId: wallet.id })
    const created = await custody().transactions.create({ walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 1_000_000 } }, { waitMs: 0 })
    const seen: Array<StageEvent> = []
    for await (const event of stream) {
      seen.push(event)
      if (event.status === "confirmed" || event.status === "failed") break
    }
    expect(seen.every((event) => event.txId === created.id)).toBe(true)
    expect(seen.map((event) => event.status)).toEqual(["pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"])
    expect(seen.at(-1)?.signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{80,90}$/)
  })
})
