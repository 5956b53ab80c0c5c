/**
 * The RPC pool in the running service: with CHAIN_RPC_URL dead (a closed port) and CHAIN_RPC_POOL_URLS
 * the live ledger, wallets are still funded and read and a transfer_sol confirms; the failover is
 * counted (metric and audit event) and the dead endpoint's score falls, both through calls and
 * through the background prober.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Connection, PublicKey } from "@solana/web3.js"
import { startTestLedger } from "../support/ledger.js"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const DEAD_RPC = "http://127.0.0.1:9"

interface EndpointStatus {
  url: string
  score: number
  successes: number
  failures: number
  avgLatencyMs: number
  failStreak: number
  lastCheckedAt: string | null
  lastError?: string
}

let ledger: Awaited<ReturnType<typeof startTestLedger>>

beforeAll(async () => {
  ledger = await startTestLedger()
})

afterAll(async () => {
  await ledger?.close()
})

const poolStatus = async (service: RunningService) => {
  const answer = await api<{ readonly endpoints: ReadonlyArray<EndpointStatus> }>(service.baseUrl, "GET", "/api/v1/rpc/pool/status")
  expect(answer.status).toBe(200)
  const endpoints = answer.body.data.endpoints
  const dead = endpoints.find((e) => e.url.includes(":9/") || e.url.endsWith(":9"))
  const live = endpoints.find((e) => e !== dead)
  if (dead === undefined || live === undefined) throw new Error(`unexpected endpoints ${JSON.stringify(endpoints)}`)
  return { endpoints, dead, live }
}

describe("RPC pool with a dead first endpoint", () => {
  let service: RunningService
  beforeAll(async () => {
    // A long probe interval: only the calls of this test move the scores.
    service = await startService({ rpcUrl: DEAD_RPC, env: { CHAIN_RPC_POOL_URLS: ledger.rpcUrl, CHAIN_RPC_HEALTH_PROBE_MS: "600000" } })
  })
  afterAll(async () => {
    await service?.stop()
  })

  it("funds a wallet and reads its balance through the live endpoint", async () => {
    const created = await makeClient(service.baseUrl).wallets.create({ body: { autoFund: true, fundLamports: 2_000_000_000 } })
    expect(created.status).toBe(201)
    expect(created.body.data.funding).toMatchObject({ ok: true, lamports: 2_000_000_000 })
    const balance = await makeClient(service.baseUrl).wallets.balance({ params: { walletId: created.body.data.id } })
    expect(balance.body.data).toEqual({ lamports: 2_000_000_000, sol: 2 })
  })

  it("confirms a transfer_sol through the pipeline", async () => {
    const source = await createWallet(service.baseUrl, 1_000_000_000)
    const destination = await createWallet(service.baseUrl, 1_000_000_000)
    const created = await submit(service.baseUrl, {
      walletId: source.id,
      type: "transfer_sol",
      protocol: "system-program",
      intent: { destination: destination.publicKey, lamports: 100_000_000 }
    })
    expect(created.status).toBe(201)
    const settled = await waitSettled(service.baseUrl, created.body.data.id)
    expect(settled.body.data.status).toBe("confirmed")
    const balance = await new Connection(ledger.rpcUrl, "confirmed").getBalance(new PublicKey(destination.publicKey))
    expect(balance).toBe(1_100_000_000)
  })

  it("shows the dead endpoint's score fallen and the live one serving", async () => {
    const { endpoints, dead, live } = await poolStatus(service)
    expect(endpoints).toHaveLength(2)
    expect(dead).toMatchObject({ successes: 0 })
    expect(dead.failures).toBeGreaterThanOrEqual(1)
    expect(dead.score).toBeLessThan(1)
    expect(dead.lastError).toContain("network error")
    expect(live).toMatchObject({ score: 1, failStreak: 0 })
    expect(live.successes).toBeGreaterThanOrEqual(2)
    expect(live.score).toBeGreaterThan(dead.score)
  })

  it("counts the failover as a metric and an audit event", async () => {
    const metrics = (await makeClient(service.baseUrl).audit.metrics({})).body.data as Record<string, number>
    expect(metrics["rpc.pool.failover"]).toBeGreaterThanOrEqual(1)
    const events = await makeClient(service.baseUrl).audit.list({ query: { eventType: "rpc.failover" } })
    expect(events.body.data.total).toBeGreaterThanOrEqual(1)
    const event = events.body.data.events[0]
    expect(event).toMatchObject({ tenantId: "system", category: "operations", entityType: "rpc_endpoint" })
    expect(event.metadata).toMatchObject({ from: expect.stringContaining("127.0.0.1:9"), to: expect.stringContaining("127.0.0.1") })
  })
})

describe("RPC prober", () => {
  it("probes every endpoint in the background: the dead one's score falls without any call", async () => {
    const service = await startService({ rpcUrl: DEAD_RPC, env: { CHAIN_RPC_POOL_URLS: ledger.rpcUrl, CHAIN_RPC_HEALTH_PROBE_MS: "200" } })
    try {
      await waitFor("two probes", async () => {
        const { dead, live } = await poolStatus(service)
        return dead.failures >= 2 && live.successes >= 2
      }, 10_000, 100)
      const { dead, live } = await poolStatus(service)
      expect(dead.score).toBeLessThanOrEqual(0.7 * 0.7 + 1e-9)
      expect(dead.lastCheckedAt).not.toBeNull()
      expect(live.score).toBe(1)
      const actor = await makeClient(service.baseUrl).runtime.actor({ params: { name: "rpc-prober" } })
      expect(actor.status).toBe(200)
      expect(actor.body.data).toMatchObject({ name: "rpc-prober", kind: "rpc-prober", restarts: 0, lastError: null })
    } finally {
      await service.stop()
    }
  })
})
