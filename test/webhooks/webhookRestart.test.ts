/**
 * A restart loses no pending delivery: the receiver refuses everything while the service (the real
 * entry point, as its own process group) records a transfer's events, the service is killed with
 * SIGKILL with the deliveries still pending in SQL, and a new process on the same database delivers
 * each of them once the receiver accepts, signed as the `standardwebhooks` library verifies. The secret
 * appears in neither process's output nor in any read answer.
 */
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { WebhooksApi } from "../../schemas/api/webhooks.js"
import type { WireDataOf } from "../support/client.js"
import { Keypair } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { call, createFundedWallet, type SharedDeployment, startSharedDeployment } from "../support/processes.js"
import { waitFor } from "../support/wait.js"
import { startWebhookReceiver, type WebhookReceiver } from "./webhookReceiver.js"

let deployment: SharedDeployment | undefined
let receiver: WebhookReceiver | undefined

const env = {
  TX_PIPELINE_WORKERS: "2",
  WEBHOOK_BACKOFF_MS: "100",
  WEBHOOK_MAX_BACKOFF_MS: "300",
  WEBHOOK_MAX_ATTEMPTS: "1000",
  WEBHOOK_POLL_MS: "100",
  WEBHOOK_TIMEOUT_MS: "2000"
}

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  deployment = await startSharedDeployment("custody-webhook-restart-")
}, 120_000)

afterAll(async () => {
  await deployment?.close()
  await receiver?.close()
}, 60_000)

describe("webhook deliveries across a restart", () => {
  it("delivers after kill -9 what was pending before it", async () => {
    const hooks = receiver!
    hooks.setFailAlways(true)
    const first = await deployment!.startService(env)
    const created = await call(first.baseUrl, "POST", "/api/v1/webhooks", { url: hooks.url, eventTypes: ["transaction.created", "transaction.confirmed"] })
    expect(created.status).toBe(201)
    const subscription = created.body.data as { id: string; secret: string }
    hooks.setSecrets([subscription.secret])

    const wallet = await createFundedWallet(first.baseUrl, 1_000_000_000)
    const transfer = await call<WireDataOf<typeof TransactionsApi.create>>(first.baseUrl, "POST", "/api/v1/transactions?waitMs=20000", {
      walletId: wallet.id, type: "transfer_sol", protocol: "system-program",
      intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 }
    })
    expect(transfer.body.data.status, JSON.stringify(transfer.body)).toBe("confirmed")
    const txId: string = transfer.body.data.id
    const refusedTypes = () => new Set(hooks.attempts.filter((a) => a.answered === 500 && a.payload?.data.txId === txId).map((a) => a.payload?.type))
    await waitFor("both events refused at least once", () => refusedTypes().size === 2, 30_000)

    first.kill("SIGKILL")
    await first.exited
    expect(hooks.accepted()).toHaveLength(0)
    hooks.setFailAlways(false)

    const second = await deployment!.startService(env)
    const acceptedTypes = () => hooks.accepted().filter((a) => a.payload?.data.txId === txId).map((a) => a.payload?.type)
    // A delivery whose attempt the kill interrupted waits for its lease (timeout + 30 s) to expire.
    await waitFor("both events delivered by the new process", () => acceptedTypes().length === 2, 90_000)
    expect(acceptedTypes().sort()).toEqual(["transaction.confirmed", "transaction.created"])
    expect(hooks.attempts.every((a) => a.verified)).toBe(true)

    // The receiver holds an attempt as soon as it answers 200; the service records it delivered right after.
    const readDeliveries = async () => (await call<WireDataOf<typeof WebhooksApi.deliveries>>(second.baseUrl, "GET", `/api/v1/webhooks/${subscription.id}/deliveries`)).body.data.deliveries
    await waitFor("both deliveries recorded as delivered", async () => (await readDeliveries()).filter((d) => d.status === "delivered").length === 2, 10_000)
    const deliveries = await readDeliveries()
    expect(deliveries).toHaveLength(2)
    for (const delivery of deliveries) {
      expect(delivery.status).toBe("delivered")
      expect(delivery.attempts).toBeGreaterThan(1)
    }
    // The secret was in the create answer only: neither process printed it, nor does any read answer hold it.
    const secretBody = subscription.secret.slice("whsec_".length)
    expect(first.output()).not.toContain(secretBody)
    expect(second.output()).not.toContain(secretBody)
    const reads = await Promise.all([`/api/v1/webhooks`, `/api/v1/webhooks/${subscription.id}`, `/api/v1/webhooks/${subscription.id}/deliveries`, `/api/v1/audit/events?limit=1000`]
      .map((path) => call(second.baseUrl, "GET", path)))
    for (const read of reads) expect(JSON.stringify(read.body)).not.toContain(secretBody)
  }, 240_000)
})
