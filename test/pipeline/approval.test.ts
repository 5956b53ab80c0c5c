/**
 * The approval gate: a transaction that needs approval answers 202 and waits; approve continues it to
 * a confirmed transfer; reject fails it with the reason recorded; pending approvals are listed.
 * Called through the typed client (test/support/client.ts): answers decoded by the contract's schemas.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { raceOnTheRow } from "../support/rowRace.js"
import { createWallet, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger()

const gatedTransfer = (walletId: string, destination: string) =>
  makeClient(env.service.baseUrl).transactions.create({
    query: { waitMs: 10_000 },
    body: { walletId, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports: 1_000_000 } }
  })

/** A new wallet's transfer waiting at the gate (202), with the client, the wallet and the destination. */
const waitingAtTheGate = async () => {
  const client = makeClient(env.service.baseUrl)
  const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
  const destination = Keypair.generate().publicKey.toBase58()
  const created = await gatedTransfer(wallet.id, destination)
  expect(created.status).toBe(202)
  return { client, wallet, destination, created, txId: created.data!.id }
}

/** Rejects it, then finds it failed with the reason and the destination paid nothing; answers the record read. */
const rejectedAsAsked = async (client: ReturnType<typeof makeClient>, txId: string, destination: string) => {
  const rejected = await client.transactions.reject({ params: { txId }, body: { reason: "not on my watch" } })
  expect(rejected.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy" })
  const got = await client.transactions.get({ params: { txId } })
  expect(got.data).toMatchObject({ status: "failed", approval: { status: "rejected", reason: "not on my watch" } })
  expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(0)
  return got
}

describe("approval gate", () => {
  it("waits at the gate (202), lists the pending approval, and confirms after approve", async () => {
    const { client, wallet, destination, created, txId } = await waitingAtTheGate()
    expect(created.data).toMatchObject({ status: "approval_gate", awaitingApproval: true, approval: { status: "pending" } })
    const expiresIn = Date.parse(created.data!.approval!.expiresAt) - Date.parse(created.data!.approval!.requestedAt)
    expect(expiresIn).toBe(24 * 60 * 60 * 1000)
    expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(0)

    const pending = await client.transactions.pendingApprovals({ params: { walletId: wallet.id } })
    expect(pending.data!.transactions.map((t) => t.id)).toEqual([txId])

    const approved = await client.transactions.approve({ params: { txId } })
    expect(approved.status).toBe(200)
    const settled = await waitSettled(env.service.baseUrl, txId)
    expect(settled.body.data.status).toBe("confirmed")
    const record = (await client.transactions.get({ params: { txId } })).data!
    expect(record.approval!.status).toBe("approved")
    expect(await new Connection(env.ledger.rpcUrl).getBalance(new PublicKey(destination))).toBe(1_000_000)
    // approved, it was built again (a fresh blockhash) and its effect compared with the approved preview before signing
    expect(record.history.map((h) => h.status)).toEqual(["pending", "simulating", "policy_eval", "approval_gate", "signing", "signing", "submitting", "confirmed"])

    // The same operator approving again (say its first answer was lost) is answered the transaction as it is now.
    const again = await client.transactions.approve({ params: { txId } })
    expect(again.status).toBe(200)
    expect(again.data).toMatchObject({ status: "confirmed", signature: record.signature })
    expect(again.data?.history).toHaveLength(record.history.length)
    const empty = await client.transactions.pendingApprovals({ params: { walletId: wallet.id } })
    expect(empty.data!.total).toBe(0)
  })

  it("fails with the reason after reject and never signs", async () => {
    const { client, destination, txId } = await waitingAtTheGate()
    const got = await rejectedAsAsked(client, txId, destination)
    expect(got.status).toBe(200)
    expect(got.body.status).toBe("failure")
    expect(got.data!.signature).toBeUndefined()
    const retried = await client.transactions.retry({ params: { txId } })
    expect(retried.status).toBe(400)
  })

  it("a reject whose move lost and which then finds the transaction at the gate again (a new attempt reached it) answers 409 'read it again' and changes nothing", async () => {
    const { client, destination, txId } = await waitingAtTheGate()
    // Played with locks: the record leaves the gate (approved by another, say) while the reject's move waits on its
    // row, then is back at the gate (that attempt failed and a retry reached the gate again) before the reject reads it.
    const answered = await raceOnTheRow(env.service.database.url, txId, {
      loserStatement: "UPDATE transactions t SET",
      moveAway: "UPDATE transactions SET status = 'signing', stage = 'sign' WHERE id = $1",
      moveBack: "UPDATE transactions SET status = 'approval_gate', stage = 'policy' WHERE id = $1"
    }, () => client.transactions.reject({ params: { txId }, body: { reason: "not on my watch" } }))
    expect(answered.status, JSON.stringify(answered.body)).toBe(409)
    expect(answered.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
    expect(answered.body.error).toBe(`transaction ${txId}: its approval changed while this reject ran; read it again`)

    // Nothing changed: still waiting, the approval pending and no rejection recorded; a reject now fails it as asked.
    const waiting = (await client.transactions.get({ params: { txId } })).data!
    expect(waiting).toMatchObject({ status: "approval_gate", approval: { status: "pending" } })
    expect(waiting.history.filter((entry) => entry.status === "failed")).toEqual([])
    await rejectedAsAsked(client, txId, destination)
  })
})
