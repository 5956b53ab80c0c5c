/**
 * [n8] An approval that waits past its expiry (24 hours by default) fails the transaction with POLICY_VIOLATION (approval
 * expired) and never signs; one still within its time is left alone.
 */
import { SqlClient } from "@effect/sql"
import { Keypair } from "@solana/web3.js"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { expireApprovals } from "../../actors/approvalExpirer.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit } from "../support/transactions.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)

const awaitingApproval = async (walletId: string) => {
  const created = await submit(env.service.baseUrl, {
    walletId, type: "transfer_sol", protocol: "system-program", requireApproval: true,
    intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 }
  }, undefined, "?waitMs=10000")
  expect(created.status).toBe(202)
  return created.body.data.id as string
}

describe("approval expiry", () => {
  it("fails an approval older than 24 hours and keeps a fresh one waiting", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const stale = await awaitingApproval(wallet.id)
    const fresh = await awaitingApproval(wallet.id)
    const past = new Date(Date.now() - 1000).toISOString()
    await env.service.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) =>
        sql`UPDATE transactions SET approval = jsonb_set(approval, '{expiresAt}', to_jsonb(${past}::text)) WHERE id = ${stale}`
      )
    )
    const expired = await env.service.runtime.runPromise(expireApprovals)
    expect(expired).toBe(1)

    const staleTx = await client().transactions.get({ params: { txId: stale } })
    expect(staleTx.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    expect(staleTx.body.data).toMatchObject({ status: "failed", approval: { status: "expired" } })
    expect(staleTx.body.data.signature).toBeUndefined()
    const freshTx = await client().transactions.get({ params: { txId: fresh } })
    expect(freshTx.body.data.status).toBe("approval_gate")
    const approveStale = await client().transactions.approve({ params: { txId: stale } })
    expect(approveStale.status).toBe(400)
  })
})
