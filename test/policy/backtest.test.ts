/**
 * Policy backtests (issue 34 item 2) through the pipeline on the local ledger: a wallet's recorded day of
 * transfers replayed against a tighter and a looser candidate (rules, or a stored policy at a version), per
 * transaction the decision it would have had with its trace, the summary (would deny, would ask approval,
 * value blocked, changed); no transaction runs again; bad input answers 400/404 naming the field.
 */
import { Keypair } from "@solana/web3.js"
import { beforeAll, describe, expect, it } from "vitest"
import { dataOf, makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { ADMIN_KEY, api } from "../support/service.js"
import { createWallet, submit } from "../support/transactions.js"

const OTHER = { "x-api-key": "other-key" }
const env = useServiceWithLedger({ env: { API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;other-key:other:all` } })
const client = () => makeClient(env.service.baseUrl)
const AMOUNTS = [1_000_000, 3_000_000, 6_000_000, 10_000_000]
let walletId: string

beforeAll(async () => {
  walletId = (await createWallet(env.service.baseUrl, 1_000_000_000)).id
  for (const lamports of AMOUNTS) {
    const sent = await submit(env.service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports } }, undefined, "?waitMs=10000")
    expect(sent.data?.status).toBe("confirmed")
  }
  // A read: no decision to replay.
  await submit(env.service.baseUrl, { walletId, type: "query_balance", protocol: "system-program", intent: {} }, undefined, "?waitMs=10000")
}, 60_000)

const backtest = (body: Record<string, unknown>) => client().policies.backtest({ body: { walletId, days: 1, ...body } as never })

describe("policy backtests", () => {
  it("a tighter candidate: per transaction the decision it would have had, with its trace, and the value it would have blocked", async () => {
    const answer = await backtest({ rules: [{ type: "spending_limit", maxLamportsPerTx: 5_000_000, requireApprovalAboveLamports: 2_000_000 }] })
    expect(answer.status).toBe(200)
    const result = dataOf(answer)
    expect(result.transactions.map((tx) => [tx.amountLamports, tx.recordedDecision, tx.decision])).toEqual([
      ["1000000", "allow", "allow"], ["3000000", "allow", "require_approval"], ["6000000", "allow", "deny"], ["10000000", "allow", "deny"]
    ])
    expect(result.summary).toEqual({ total: 4, wouldAllow: 1, wouldDeny: 2, wouldAskApproval: 1, changed: 3, valueBlockedLamports: "16000000" })
    expect(result.transactions[2]!.trace[0]).toMatchObject({ ruleType: "spending_limit", verdict: "deny", observed: { amountLamports: 6_000_000 } })
    expect(result.transactions[2]!.reasons[0]).toContain("exceeds maxLamportsPerTx 5000000")
    // Nothing ran again: the wallet still has its four transfers and one read.
    expect(dataOf(await client().transactions.listByWallet({ params: { walletId } })).total).toBe(5)
  })

  it("replays the day's state: a daily limit counts what the candidate let through before", async () => {
    const result = dataOf(await backtest({ rules: [{ type: "spending_limit", maxLamportsPerDay: 5_000_000 }] }))
    expect(result.transactions.map((tx) => tx.decision)).toEqual(["allow", "allow", "deny", "deny"])
    expect(result.transactions[2]!.trace[0]).toMatchObject({ observed: { dailySpentLamports: 4_000_000 } })
  })

  it("a looser candidate, stored as a policy version, would have changed nothing", async () => {
    const stored = dataOf(await client().policies.create({ body: { walletId, name: "candidate", active: false, rules: [{ type: "spending_limit", maxLamportsPerTx: 100_000_000 }] } }))
    await client().policies.update({ params: { policyId: stored.id }, body: { rules: [{ type: "spending_limit", maxLamportsPerTx: 1 }] } })
    const result = dataOf(await backtest({ policyId: stored.id, version: 1 }))
    expect(result.candidate).toEqual({ policyId: stored.id, version: 1, rules: 1 })
    expect(result.summary).toMatchObject({ total: 4, wouldAllow: 4, wouldDeny: 0, changed: 0, valueBlockedLamports: "0" })
    // Its current version (2) is the tightest.
    expect(dataOf(await backtest({ policyId: stored.id })).summary).toMatchObject({ wouldDeny: 4 })
  })

  it("refuses bad input with a 400 or 404 naming the field, and changes nothing", async () => {
    const theirs = await createWallet(env.service.baseUrl, undefined, OTHER)
    const call = (body: unknown, headers?: Record<string, string>) => api(env.service.baseUrl, "POST", "/api/v1/policies/backtest", body, headers)
    const rules = [{ type: "spending_limit", maxLamportsPerTx: 1 }]
    for (const [body, status, named] of [
      [{ walletId, days: 0, rules }, 400, "days"],
      [{ walletId, days: 91, rules }, 400, "days"],
      [{ walletId, days: 1 }, 400, "rules"],
      [{ walletId, days: 1, rules, policyId: "00000000-0000-4000-8000-000000000000" }, 400, "rules"],
      [{ walletId, days: 1, rules: [{ type: "spending_limit", maxLamportPerTx: 1 }] }, 400, "maxLamportPerTx"],
      [{ walletId, days: 1, policyId: "00000000-0000-4000-8000-000000000000" }, 404, "policy"],
      [{ walletId: theirs.id, days: 1, rules }, 404, "wallet"]
    ] as const) {
      const answer = await call(body, { "x-api-key": ADMIN_KEY, "x-tenant-id": "default" })
      expect(answer.status, JSON.stringify(body)).toBe(status)
      expect(answer.body.error).toContain(named)
    }
    expect(dataOf(await client().transactions.listByWallet({ params: { walletId } })).total).toBe(5)
  })
})
