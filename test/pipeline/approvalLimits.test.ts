/**
 * [n8] The approval gate's limits through the real service, ledger and database: approving at or
 * after the expiry is refused (and the transaction fails as expired), the signer refuses an approval
 * recorded after its expiry whatever wrote it, and waiting transactions reserve their daily spend
 * (given back on reject or expiry), so approving every one of them cannot pass the daily limit.
 */
import { SqlClient } from "@effect/sql"
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { expireApprovals } from "../../actors/approvalExpirer.js"
import { approvalExpired, approvedInTime } from "../../src/pipeline/approvalExpiry.js"
import { Outbox } from "../../src/pipeline/outbox.js"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { defined } from "../support/defined.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)

const SOL = 1_000_000_000
const transfer = async (walletId: string, lamports: number, extra: Record<string, unknown> = {}) => {
  const destination = Keypair.generate().publicKey.toBase58()
  const created = await submit(env.service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports }, ...extra }, undefined, "?waitMs=20000")
  return { id: created.body.data.id, destination, status: created.status, data: created.body.data }
}
const approve = (txId: string) => client().transactions.approve({ params: { txId } })
const settle = async (txId: string) => (await waitSettled(env.service.baseUrl, txId, 60_000)).data
const balance = (address: string) => new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(address))
const dailyLimitWithApproval = async (walletId: string, maxLamportsPerDay: number) => {
  const created = await client().policies.create({ body: {
    walletId, name: "every transfer approved", rules: [{ type: "spending_limit", maxLamportsPerDay, requireApprovalAboveLamports: 0 }]
  } })
  expect(created.status).toBe(201)
}
const runSql = <A>(statement: (sql: SqlClient.SqlClient) => Effect.Effect<A, unknown>) =>
  env.service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, statement))
const moveExpiryTo = (txId: string, at: Date) =>
  runSql((sql) => sql`UPDATE transactions SET approval = jsonb_set(approval, '{expiresAt}', to_jsonb(${at.toISOString()}::text)) WHERE id = ${txId}`)

describe("when an approval has expired", () => {
  it("is expired at its expiresAt and after, valid only strictly before", () => {
    const expiresAt = "2026-01-01T00:00:00.000Z"
    expect(approvalExpired({ expiresAt }, new Date("2025-12-31T23:59:59.999Z"))).toBe(false)
    expect(approvalExpired({ expiresAt }, new Date(expiresAt))).toBe(true)
    expect(approvalExpired({ expiresAt }, new Date("2026-01-01T00:00:00.001Z"))).toBe(true)
    expect(approvalExpired({}, new Date(0))).toBe(true)
    expect(approvedInTime({ status: "approved", expiresAt, decidedAt: "2025-12-31T23:59:59.999Z" })).toBe(true)
    expect(approvedInTime({ status: "approved", expiresAt, decidedAt: expiresAt })).toBe(false)
    expect(approvedInTime({ status: "approved", expiresAt })).toBe(false)
    expect(approvedInTime({ status: "pending", expiresAt, decidedAt: "2025-12-31T00:00:00.000Z" })).toBe(false)
  })
})

describe("approval_gate -> signing (approve)", () => {
  it("refuses an approve at or after the expiry: the transaction fails as expired, never signs, and its reserved spend is given back", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    await dailyLimitWithApproval(wallet.id, SOL)
    const stale = await transfer(wallet.id, 0.6 * SOL)
    expect(stale.status).toBe(202)
    // The waiting 0.6 SOL is reserved: another 0.6 SOL does not fit in the day's 1 SOL.
    const blocked = await transfer(wallet.id, 0.6 * SOL)
    expect(blocked.data).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION" })

    await moveExpiryTo(stale.id, new Date())
    const refused = await approve(stale.id)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toContain("expired")
    const after = await settle(stale.id)
    expect(after).toMatchObject({ status: "failed", failedAt: "policy", errorCode: "POLICY_VIOLATION", approval: { status: "expired" } })
    expect(after.signature).toBeUndefined()
    expect(await balance(stale.destination)).toBe(0)
    expect((await approve(stale.id)).status).toBe(400)

    // Given back: the day's 1 SOL is free again.
    const fits = await transfer(wallet.id, 0.6 * SOL)
    expect(fits.status).toBe(202)
  }, 120_000)

})

describe("approval_gate -> failed (the approval expirer)", () => {
  it("gives the reserved spend back", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    await dailyLimitWithApproval(wallet.id, SOL)
    const stale = await transfer(wallet.id, SOL)
    expect(stale.status).toBe(202)
    expect((await transfer(wallet.id, 0.1 * SOL)).data.status).toBe("failed")
    await moveExpiryTo(stale.id, new Date(Date.now() - 1000))
    expect(await env.service.runtime.runPromise(expireApprovals)).toBeGreaterThanOrEqual(1)
    expect((await settle(stale.id)).approval?.status).toBe("expired")
    expect((await transfer(wallet.id, SOL)).status).toBe(202)
  }, 120_000)

})

describe("signing -> submitting (the signer's check)", () => {
  it("refuses an approval recorded after its expiry, whatever wrote it: the transaction fails at sign", async () => {
    const wallet = await createWallet(env.service.baseUrl, 2 * SOL)
    const gated = await transfer(wallet.id, 0.1 * SOL, { requireApproval: true })
    expect(gated.status).toBe(202)
    const expiresAt = defined(gated.data.approval, "the approval").expiresAt
    const late = new Date(Date.parse(expiresAt) + 1000).toISOString()
    // A late approval written behind approve's back (it refuses one), then a job for the signer.
    await runSql((sql) => sql`
      UPDATE transactions SET status = 'signing', stage = 'sign',
        approval = approval || jsonb_build_object('status', 'approved', 'decidedAt', ${late}::text)
      WHERE id = ${gated.id}
    `)
    await env.service.runtime.runPromise(
      Effect.flatMap(Outbox, (outbox) => Effect.zipRight(outbox.enqueueInTransaction(gated.id, "approve"), outbox.notify))
    )
    const refused = await settle(gated.id)
    expect(refused).toMatchObject({ status: "failed", failedAt: "sign", errorCode: "PIPELINE_ERROR" })
    expect(refused.error).toContain("approval was not given before it expired")
    expect(refused.signature).toBeUndefined()
    expect(await balance(gated.destination)).toBe(0)
  }, 120_000)
})

describe("policy_eval -> approval_gate (reserving the daily spend)", () => {
  it("approving every waiting transfer cannot pass the daily limit; a reject gives its reservation back", async () => {
    const wallet = await createWallet(env.service.baseUrl, 3 * SOL)
    await dailyLimitWithApproval(wallet.id, SOL)
    const waiting = [await transfer(wallet.id, 0.4 * SOL), await transfer(wallet.id, 0.4 * SOL)]
    for (const tx of waiting) expect(tx.status).toBe(202)
    const third = await transfer(wallet.id, 0.4 * SOL)
    expect(third.data).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION" })
    expect(third.data.error).toContain("maxLamportsPerDay")

    const rejected = await client().transactions.reject({ params: { txId: waiting[1].id }, body: { reason: "not this one" } })
    expect(rejected.status).toBe(200)
    const replacement = await transfer(wallet.id, 0.6 * SOL)
    expect(replacement.status).toBe(202)

    for (const tx of [waiting[0], replacement]) expect((await approve(tx.id)).status).toBe(200)
    expect((await settle(waiting[0].id)).status).toBe("confirmed")
    expect((await settle(replacement.id)).status).toBe("confirmed")
    const moved = (await balance(waiting[0].destination)) + (await balance(waiting[1].destination)) + (await balance(third.destination)) + (await balance(replacement.destination))
    expect(moved).toBe(SOL)
    expect((await transfer(wallet.id, 0.1 * SOL)).data.status).toBe("failed")
  }, 120_000)
})
