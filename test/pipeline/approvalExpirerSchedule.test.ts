/**
 * approval_gate -> failed by expiry, driven by the approval expirer actor on its own schedule ([n8]):
 * with APPROVAL_TTL_MS=3000 and APPROVAL_EXPIRY_SWEEP_MS=200 (configuration, nothing moved in SQL,
 * no sweep called by the test) a transaction left at the gate fails as expired with POLICY_VIOLATION,
 * never signs, and gives its reserved daily spend back; one approved in time is untouched.
 */
import { Connection, Keypair, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { makeClient } from "../support/client.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { defined } from "../support/defined.js"

const TTL_MS = 3_000
const env = useServiceWithLedger({ env: { APPROVAL_TTL_MS: String(TTL_MS), APPROVAL_EXPIRY_SWEEP_MS: "200" } })
const base = () => env.service.baseUrl

const atGate = async (walletId: string, destination: string, lamports: number) => {
  const created = await submit(base(), { walletId, type: "transfer_sol", protocol: "system-program", requireApproval: true, intent: { destination, lamports } })
  const settled = (await waitSettled(base(), created.body.data.id)).body.data
  expect(settled.status).toBe("approval_gate")
  return settled
}

describe("the approval expirer's own schedule", () => {
  it("fails an approval left past its expiry, gives its spend back, and leaves an approved one alone", async () => {
    const wallet = await createWallet(base(), 1_000_000_000)
    expect((await makeClient(base()).policies.create({ body: { walletId: wallet.id, name: "day", rules: [{ type: "spending_limit", maxLamportsPerDay: 3_000_000 }] } })).status).toBe(201)
    const [left, approved] = [Keypair.generate().publicKey.toBase58(), Keypair.generate().publicKey.toBase58()]
    const waiting = await atGate(wallet.id, left, 2_000_000)
    const approval = defined(waiting.approval, "the approval")
    expect(Date.parse(approval.expiresAt) - Date.parse(approval.requestedAt)).toBe(TTL_MS)
    const inTime = await atGate(wallet.id, approved, 1_000_000)
    expect((await makeClient(base()).transactions.approve({ params: { txId: inTime.id } })).status).toBe(200)

    // No request of ours touches the first one: the actor's own sweep fails it after its expiry.
    let record = waiting
    for (const deadline = Date.now() + 30_000; record.status === "approval_gate" && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      record = (await makeClient(base()).transactions.get({ params: { txId: waiting.id } })).body.data
    }
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(approval.expiresAt))
    expect(record).toMatchObject({ status: "failed", errorCode: "POLICY_VIOLATION", failedAt: "policy", approval: { status: "expired" } })
    expect(record.error).toBe(`approval expired: no decision before ${approval.expiresAt}`)
    expect(record.signature).toBeUndefined()
    expect((await waitSettled(base(), inTime.id)).body.data.status).toBe("confirmed")
    const connection = new Connection(env.ledger.rpcUrl, "confirmed")
    expect(await connection.getBalance(new PublicKey(left))).toBe(0)
    expect(await connection.getBalance(new PublicKey(approved))).toBe(1_000_000)

    // The expired one's 2,000,000 reserved at the gate came back: 2,000,000 more fits under the 3,000,000 day.
    const next = await submit(base(), { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: left, lamports: 2_000_000 } })
    expect((await waitSettled(base(), next.body.data.id)).body.data.status).toBe("confirmed")
  })
})
