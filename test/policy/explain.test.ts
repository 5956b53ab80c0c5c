/**
 * Explanations (issue 34 item 2): POST /evaluate with `explain: true` answers, per rule, what it looked at, the
 * observed value, the limit and its verdict; a transaction's decision is recorded with its trace, which
 * /replay shows (the policies' rules and the pipeline's checks: gasless, protocol risk, portfolio, value limits).
 */
import { Keypair } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { dataOf, makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { createWallet, submit } from "../support/transactions.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)

describe("decision explanations", () => {
  it("/evaluate explains each rule; a transaction's /replay shows its decision's trace", async () => {
    const wallet = await createWallet(env.service.baseUrl, 1_000_000_000)
    const blocked = Keypair.generate().publicKey.toBase58()
    const destination = Keypair.generate().publicKey.toBase58()
    expect((await client().policies.create({ body: { walletId: wallet.id, name: "caps", rules: [
      { type: "spending_limit", maxLamportsPerTx: 5_000_000 },
      { type: "address_blocklist", addresses: [blocked] }
    ] } })).status).toBe(201)

    const body = { walletId: wallet.id, type: "transfer_sol", protocol: "system-program" as const, destination, amountLamports: 10_000_000 }
    const plain = dataOf(await client().policies.evaluate({ body }))
    expect(plain.decision).toBe("deny")
    expect(plain.trace).toBeUndefined()
    const explained = dataOf(await client().policies.evaluate({ body: { ...body, explain: true } }))
    expect(explained.decision).toBe("deny")
    expect(explained.trace).toEqual(expect.arrayContaining([
      expect.objectContaining({
        source: 'policy "caps" v1 rules[0]', ruleType: "spending_limit", lookedAt: expect.arrayContaining(["amountLamports"]),
        observed: expect.objectContaining({ amountLamports: 10_000_000 }), limit: { maxLamportsPerTx: 5_000_000 }, verdict: "deny"
      }),
      expect.objectContaining({ source: 'policy "caps" v1 rules[1]', ruleType: "address_blocklist", observed: { destination }, limit: { addresses: [blocked] }, verdict: "allow" }),
      expect.objectContaining({ ruleType: "risk_tier", verdict: "allow" })
    ]))

    // A real transfer over the cap: its recorded decision carries the trace, shown by /replay.
    const denied = await submit(env.service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 10_000_000 } }, undefined, "?waitMs=10000")
    expect(denied.status).toBe(403)
    const replay = dataOf(await client().transactions.replay({ params: { txId: denied.data?.id ?? "" } }))
    const trace = replay.policyDecision?.trace ?? []
    expect(trace.find((entry) => entry.ruleType === "spending_limit")).toMatchObject({ verdict: "deny", observed: { amountLamports: 10_000_000 } })
    expect(trace.map((entry) => entry.source)).toEqual(expect.arrayContaining(["gasless", "protocol risk config", "portfolio risk controls", "value limits", "approval requested"]))
    // An allowed one says why it passed.
    const allowed = await submit(env.service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination, lamports: 1_000_000 } }, undefined, "?waitMs=10000")
    expect(allowed.data?.status).toBe("confirmed")
    const allowedTrace = dataOf(await client().transactions.replay({ params: { txId: allowed.data?.id ?? "" } })).policyDecision?.trace ?? []
    expect(allowedTrace.find((entry) => entry.ruleType === "spending_limit")).toMatchObject({ verdict: "allow", observed: { amountLamports: 1_000_000 } })
  }, 60_000)
})
