/**
 * rate_limit against its SQL store, through the pipeline (spec: sliding window per walletId:agentId;
 * deny at or above maxTx; an event is recorded only on allow): the window fills and denies, an expired
 * event frees its place, concurrent racers never get more than maxTx through, and wallets do not share
 * a window.
 */
import { SqlClient } from "@effect/sql"
import { Keypair } from "@solana/web3.js"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { waitFor } from "../support/wait.js"

const env = useServiceWithLedger()
const base = () => env.service.baseUrl

const withRateLimit = async (maxTx: number, windowSeconds: number) => {
  const wallet = await createWallet(base(), 1_000_000_000)
  const policy = await makeClient(base()).policies.create({ body: { walletId: wallet.id, name: "rate", rules: [{ type: "rate_limit", maxTx, windowSeconds }] } })
  expect(policy.status).toBe(201)
  return wallet
}

/** When the wallet's rate events were recorded (the service's clock, as the window is reckoned), oldest first. */
const rateEventTimes = (walletId: string) =>
  env.service.runtime.runPromise(
    Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ at: Date }>`SELECT at FROM policy_rate_events WHERE key LIKE ${`${walletId}:%`} ORDER BY at`).pipe(
      Effect.map((rows) => rows.map((row) => new Date(row.at)))
    )
  )

const transfer = async (walletId: string) => {
  const created = await submit(base(), { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 } })
  expect(created.body.data?.id).toEqual(expect.any(String))
  return (await waitSettled(base(), created.body.data.id)).body.data as { status: string; errorCode?: string; policyDecision?: { reasons: Array<string> } }
}

// Each test has wallets of its own, so its own windows: the three run side by side (the first mostly waits
// for its window to pass). Each uses its own `expect`, as concurrent tests need.
describe.concurrent("rate_limit with its SQL window", () => {
  it("allows maxTx transfers in the window, denies the next, and allows again once the oldest event left the window", async ({ expect }) => {
    const windowSeconds = 5
    const wallet = await withRateLimit(2, windowSeconds)
    // The two allowed ones side by side (racers are serialised: see the next test); the third is sent as
    // soon as both recorded their event, so it is evaluated well inside the window even on a slow machine.
    const allowed = [transfer(wallet.id), transfer(wallet.id)]
    await waitFor("the two allowed transfers' events", async () => (await rateEventTimes(wallet.id)).length === 2, 30_000)
    const denied = await transfer(wallet.id)
    expect((await Promise.all(allowed)).map((outcome) => outcome.status)).toEqual(["confirmed", "confirmed"])
    expect(denied).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION" })
    expect(denied.policyDecision?.reasons.join(" ")).toContain(`2 transactions in the last ${windowSeconds}s, limit is 2`)
    // A denial records no event: once the older allowed one has left the window, there is room again.
    const events = await rateEventTimes(wallet.id)
    expect(events.length).toBe(2)
    const oldestLeavesAt = events[0]!.getTime() + windowSeconds * 1000
    await waitFor("the oldest event to leave the window", () => Date.now() > oldestLeavesAt, windowSeconds * 1000 + 5_000)
    expect((await transfer(wallet.id)).status).toBe("confirmed")
  })

  it("lets exactly maxTx of 12 concurrent transfers through", async ({ expect }) => {
    const wallet = await withRateLimit(3, 600)
    const outcomes = await Promise.all(Array.from({ length: 12 }, () => transfer(wallet.id)))
    const confirmed = outcomes.filter((o) => o.status === "confirmed").length
    const denied = outcomes.filter((o) => o.status === "failed" && o.errorCode === "POLICY_VIOLATION").length
    expect({ confirmed, denied }).toEqual({ confirmed: 3, denied: 9 })
  })

  it("keeps one window per wallet", async ({ expect }) => {
    const [a, b] = await Promise.all([withRateLimit(1, 600), withRateLimit(1, 600)])
    expect((await transfer(a.id)).status).toBe("confirmed")
    expect((await transfer(b.id)).status).toBe("confirmed")
    expect((await transfer(a.id)).status).toBe("failed")
  })
})
