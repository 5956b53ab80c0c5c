/**
 * A delta guard breach caused for real (spec [n9]): with DELTA_GUARD_ABSOLUTE_TOLERANCE_LAMPORTS=0 and
 * no protocol risk config (deltaVarianceBpsThreshold 0), the network fee an outflow pays is itself a
 * breach. The transaction stays `confirmed` with `deltaGuard.ok: false` and the observed figures; the
 * supervisor pauses the owning agent when the wallet's autoPauseOnBreach holds, and not otherwise.
 */
import { SqlClient } from "@effect/sql"
import { Keypair } from "@solana/web3.js"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../../support/harness.js"
import { makeClient } from "../../support/client.js"
import { waitSettled } from "../../support/transactions.js"
import { agentEvents, agentRecord, createAgent, fundedWallet, inService, ledgerBalance, TENANT_KEYS, tenant, waitUntil } from "./harness.js"
import { defined } from "../../support/defined.js"

const env = useServiceWithLedger({
  env: { API_GATEWAY_API_KEYS: TENANT_KEYS, AGENT_LOOP_INTERVAL_MS: "200", DELTA_GUARD_ABSOLUTE_TOLERANCE_LAMPORTS: "0" }
})

const LAMPORTS = 1_000_000

/** A running agent on a funded wallet executes one transfer; answers the settled record. */
const agentTransfer = async (headers: Record<string, string>) => {
  const wallet = await fundedWallet(env.service, headers, 1_000_000_000)
  const agent = await createAgent(env.service, headers, { walletId: wallet.id, autonomy: { enabled: false } })
  const destination = Keypair.generate().publicKey.toBase58()
  const executed = await makeClient(env.service.baseUrl, headers).agents.execute({ params: { agentId: agent.id }, body: {
    type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS }
  } })
  expect([200, 201]).toContain(executed.status)
  const settled = await waitSettled(env.service.baseUrl, executed.body.data.id, 30_000, headers)
  return { agent, wallet, destination, record: settled.data }
}

describe("delta guard breach", () => {
  it("confirms the transaction with deltaGuard.ok false and the observed fee, and pauses its agent", async () => {
    const headers = tenant(0)
    const { agent, destination, record } = await agentTransfer(headers)
    expect(record.status).toBe("confirmed")
    expect(await ledgerBalance(env.ledger.rpcUrl, destination)).toBe(LAMPORTS)

    // The wallet lost the amount plus its fees; the guard reports exactly what the ledger recorded.
    const observed = Number(defined(record.postBalanceLamports, "postBalanceLamports") - defined(record.preBalanceLamports, "preBalanceLamports"))
    expect(observed).toBeLessThan(-LAMPORTS)
    expect(record.deltaGuard).toMatchObject({ ok: false, expectedLamportsDelta: -LAMPORTS, observedLamportsDelta: observed })
    expect(record.deltaGuard?.varianceBps).toBe(Math.round(((-LAMPORTS - observed) / LAMPORTS) * 10_000))
    expect(record.deltaGuard?.reason).toEqual(expect.any(String))
    expect(record.history.at(-1)).toMatchObject({ status: "confirmed" })
    expect(record.history.at(-1)?.message).toContain("delta guard breach")

    await waitUntil("the automatic pause", async () => (await agentRecord(env.service, agent.id, headers)).status === "paused")
    const paused = await agentRecord(env.service, agent.id, headers)
    expect(paused.pausedReason).toBe(`delta guard breach: transaction ${record.id}: ${record.deltaGuard?.reason}`)
    // The pause's audit event may be written a moment after the pause is visible (CI once read it too early).
    await waitUntil("the pause's audit event", async () => (await agentEvents(env.service, agent.id, "agent.paused")).length > 0)
    const events = await agentEvents(env.service, agent.id, "agent.paused")
    expect(events).toHaveLength(1)
    expect(events[0].metadata).toMatchObject({ from: "running", to: "paused", automatic: true })
    // Paused: a further execute is refused.
    const again = await makeClient(env.service.baseUrl, headers).agents.execute({ params: { agentId: agent.id }, body: {
      type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS }
    } })
    expect(again.status).toBeGreaterThanOrEqual(400)
    expect(again.body.status).toBe("failure")
  })

  it("leaves the agent running when the wallet's autoPauseOnBreach is false; the breach is still recorded", async () => {
    const headers = tenant(1)
    const wallet = await fundedWallet(env.service, headers, 1_000_000_000)
    const put = await makeClient(env.service.baseUrl, headers).risk.putPortfolio({ params: { walletId: wallet.id }, body: { autoPauseOnBreach: false } })
    expect(put.status).toBe(200)
    const agent = await createAgent(env.service, headers, { walletId: wallet.id, autonomy: { enabled: false } })
    const executed = await makeClient(env.service.baseUrl, headers).agents.execute({ params: { agentId: agent.id }, body: {
      type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: LAMPORTS }
    } })
    const record = (await waitSettled(env.service.baseUrl, executed.body.data.id, 30_000, headers)).body.data
    expect(record).toMatchObject({ status: "confirmed", deltaGuard: { ok: false } })

    const handled = () =>
      inService(env.service, Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ handled: boolean; tx_id: string }>`SELECT handled, tx_id FROM agent_breaches WHERE agent_id = ${agent.id}`).pipe(Effect.orDie))
    await waitUntil("the breach to be handled", async () => (await handled()).some((row) => row.handled))
    expect((await handled()).map((row) => row.tx_id)).toEqual([record.id])
    expect((await agentRecord(env.service, agent.id, headers)).status).toBe("running")
    expect(await agentEvents(env.service, agent.id, "agent.paused")).toHaveLength(0)
  })
})
