/**
 * The approval gate: a transaction that needs approval answers 202 and waits; approve continues it to
 * a confirmed transfer; reject fails it with the reason recorded; pending approvals are listed.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger()

describe("approval gate", () => {
  it("waits at the gate (202), lists the pending approval, and confirms after approve", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await submit(env.service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports: 1_000_000 } }, undefined, "?waitMs=10000")
    expect(created.status).toBe(202)
    expect(created.body.data).toMatchObject({ status: "approval_gate", awaitingApproval: true, approval: { status: "pending" } })
    const expiresIn = Date.parse(created.body.data.approval.expiresAt) - Date.parse(created.body.data.approval.requestedAt)
    expect(expiresIn).toBe(24 * 60 * 60 * 1000)
    expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(0)

    const pending = await api(env.service.baseUrl, "GET", `/api/v1/wallets/${wallet.id}/pending-approvals`)
    expect(pending.body.data.transactions.map((t: { id: string }) => t.id)).toEqual([created.body.data.id])

    const approved = await api(env.service.baseUrl, "POST", `/api/v1/transactions/${created.body.data.id}/approve`)
    expect(approved.status).toBe(200)
    const settled = await waitSettled(env.service.baseUrl, created.body.data.id)
    expect(settled.body.data.status).toBe("confirmed")
    expect(settled.body.data.approval.status).toBe("approved")
    expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(1_000_000)
    const statuses = settled.body.data.history.map((h: { status: string }) => h.status)
    expect(statuses).toEqual(["pending", "simulating", "policy_eval", "approval_gate", "signing", "submitting", "confirmed"])

    const again = await api(env.service.baseUrl, "POST", `/api/v1/transactions/${created.body.data.id}/approve`)
    expect(again.status).toBe(400)
    expect(again.body.error).toContain("confirmed")
    const empty = await api(env.service.baseUrl, "GET", `/api/v1/wallets/${wallet.id}/pending-approvals`)
    expect(empty.body.data.total).toBe(0)
  })

  it("fails with the reason after reject and never signs", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const destination = Keypair.generate().publicKey.toBase58()
    const created = await submit(env.service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports: 1_000_000 } }, undefined, "?waitMs=10000")
    expect(created.status).toBe(202)
    const rejected = await api(env.service.baseUrl, "POST", `/api/v1/transactions/${created.body.data.id}/reject`, { reason: "not on my watch" })
    expect(rejected.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
    const got = await api(env.service.baseUrl, "GET", `/api/v1/transactions/${created.body.data.id}`)
    expect(got.status).toBe(200)
    expect(got.body.status).toBe("failure")
    expect(got.body.data).toMatchObject({ status: "failed", approval: { status: "rejected", reason: "not on my watch" } })
    expect(got.body.data.signature).toBeUndefined()
    expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(0)
    const retried = await api(env.service.baseUrl, "POST", `/api/v1/transactions/${created.body.data.id}/retry`)
    expect(retried.status).toBe(400)
  })
})
