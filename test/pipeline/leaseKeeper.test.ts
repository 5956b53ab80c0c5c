/**
 * The lease keeper (actors/leaseKeeper.ts): a job that runs for several lease lengths keeps its lease, so
 * no other worker claims it meanwhile. Leases of 1.5 s, chaos latency of 1.2 s before each of the run's four
 * stages (about 5 s), and a second idle worker polling every 100 ms that would take the job the moment its
 * lease expired: the transfer is confirmed on its first attempt, its job claimed once. The keeper is a
 * supervised actor operators can see.
 */
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger({
  env: { CHAOS_ENABLED: "true", TX_OUTBOX_LEASE_MS: "1500", TX_OUTBOX_POLL_MS: "100", TX_PIPELINE_WORKERS: "2" }
})

describe("the outbox lease keeper", () => {
  it("keeps the lease of a job that runs for several lease lengths: no other worker claims it", async () => {
    const baseUrl = env.service.baseUrl
    expect((await makeClient(baseUrl).chaos.update({ body: { enabled: true, latencyMs: 1200, failureRates: {} } })).status).toBe(200)
    const wallet = await createWallet(baseUrl, 1_000_000_000)
    const started = Date.now()
    const created = await submit(baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 } })
    const settled = await waitSettled(baseUrl, created.body.data.id, 60_000)
    const tookMs = Date.now() - started
    expect((await makeClient(baseUrl).chaos.update({ body: { enabled: false, failureRates: {} } })).status).toBe(200)

    expect(settled.body.data.status).toBe("confirmed")
    expect(tookMs).toBeGreaterThan(3 * 1500) // the run outlasted its first lease three times over
    expect(settled.body.data.attempts).toBe(1) // claimed once: the second worker never took it over

    const keeper = await makeClient(baseUrl).runtime.actor({ params: { name: "pipeline-lease-keeper" } })
    expect(keeper.status).toBe(200)
    expect(keeper.body.data.kind).toBe("pipeline-lease-keeper")
    expect(keeper.body.data.restarts).toBe(0)
  }, 90_000)
})
