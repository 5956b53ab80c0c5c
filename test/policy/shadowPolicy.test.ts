/**
 * Shadow policies (issue 34 item 2) through the pipeline on the local ledger: a policy created in shadow is
 * evaluated on every real decision of its wallet and recorded beside it (in /replay and the audit log), never
 * enforced; a disagreement with the enforced decision is marked; activating it promotes it to enforced.
 */
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { dataOf, makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { createWallet, submit } from "../support/transactions.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)
const transfer = (walletId: string, lamports: number) =>
  submit(env.service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports } }, undefined, "?waitMs=10000")

describe("shadow policies", () => {
  it("are evaluated on every real decision and recorded beside it, never enforced, until promoted", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const shadow = dataOf(await client().policies.create({ body: { walletId: wallet.id, name: "tighter", shadow: true, rules: [{ type: "spending_limit", maxLamportsPerTx: 2_000_000 }] } }))
    expect(shadow).toMatchObject({ shadow: true, active: false })

    // Not enforced: the transfer above the shadow's cap confirms; the shadow's deny is recorded beside the allow.
    const big = await transfer(wallet.id, 5_000_000)
    expect(big.data?.status).toBe("confirmed")
    const replay = dataOf(await client().transactions.replay({ params: { txId: big.data?.id ?? "" } }))
    expect(replay.policyDecision).toMatchObject({ decision: "allow", shadow: [{ policyId: shadow.id, name: "tighter", version: 1, decision: "deny", agrees: false }] })
    expect(replay.policyDecision?.shadow?.[0]?.reasons[0]).toContain("exceeds maxLamportsPerTx 2000000")
    const small = await transfer(wallet.id, 1_000_000)
    expect(dataOf(await client().transactions.replay({ params: { txId: small.data?.id ?? "" } })).policyDecision?.shadow).toMatchObject([{ decision: "allow", agrees: true }])

    // In the audit log, with the decision's event.
    const events = dataOf(await client().audit.list({ query: { eventType: "policy.evaluated", txId: big.data?.id ?? "" } })).events
    expect(events[0]?.metadata).toMatchObject({ decision: "allow", shadow: [{ decision: "deny", agrees: false }] })

    // Promoted: now it is enforced, and no longer a shadow.
    const promoted = dataOf(await client().policies.update({ params: { policyId: shadow.id }, body: { active: true } }))
    expect(promoted.active).toBe(true)
    expect(promoted.shadow).toBeUndefined()
    const denied = await transfer(wallet.id, 5_000_000)
    expect(denied.status).toBe(403)
    expect(dataOf(await client().transactions.replay({ params: { txId: denied.data?.id ?? "" } })).policyDecision?.shadow).toBeUndefined()
  }, 60_000)
})
