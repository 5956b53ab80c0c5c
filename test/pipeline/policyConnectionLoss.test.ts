/**
 * A policy decision whose connection PostgreSQL ends while it decides (a restart, a failover) is no verdict:
 * the transfer is decided again on a new connection and lands, instead of failing for good with
 * POLICY_VIOLATION "policy engine unavailable" (which [n7] would not let it retry). The decisions are held at
 * the wallet's decision lock (test/support/heldDecisions.ts), so the cut meets each of them exactly there.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import pg from "pg"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { holdDecisions } from "../support/heldDecisions.js"
import { createWallet, submit, waitTerminal } from "../support/transactions.js"

const env = useServiceWithLedger()
const TRANSFERS = 3
const LAMPORTS = 2_000_000

describe("a policy decision that loses its connection", () => {
  it("is taken again on a new one: every transfer confirms once, none fails at policy", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    // A policy, so decisions take the wallet's decision lock (an unconstrained wallet decides without it).
    const policy = await makeClient(env.service.baseUrl).policies.create({ body: { walletId: wallet.id, name: "limit", rules: [{ type: "spending_limit", maxLamportsPerTx: 100_000_000 }] } })
    expect(policy.status).toBe(201)
    const held = await holdDecisions(env.service, wallet.id)
    const destinations = Array.from({ length: TRANSFERS }, () => Keypair.generate().publicKey.toBase58())
    const created = await Promise.all(destinations.map((destination) =>
      submit(env.service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: LAMPORTS } })
    ))
    expect(created.map((answer) => answer.status)).toEqual(Array(TRANSFERS).fill(201))
    await held.waitForWaiting(TRANSFERS)

    const admin = new pg.Client({ connectionString: env.service.database.url })
    await admin.connect()
    try {
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
      expect(cut.rowCount).toBe(TRANSFERS)
    } finally {
      await admin.end()
    }
    await held.release()

    const connection = new Connection(env.ledger.rpcUrl, "confirmed")
    for (const [index, answer] of created.entries()) {
      const settled = (await waitTerminal(env.service.baseUrl, answer.body.data.id)).data
      expect(settled).toMatchObject({ status: "confirmed", errorCode: null, failedAt: null })
      expect(settled.history.map((entry) => entry.status)).not.toContain("failed")
      expect(await connection.getBalance(new PublicKey(destinations[index]!))).toBe(LAMPORTS)
    }
  }, 120_000)
})
