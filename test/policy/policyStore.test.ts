/**
 * The engine's SQL state under concurrency (a fresh database on TEST_DATABASE_URL's server, or the run's embedded one): a daily
 * limit admitting exactly 7 of 50 concurrent decisions, idempotency per txId, released spend, and
 * fail-closed denies for a corrupted rule and an unreachable policy store.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SqlError } from "@effect/sql/SqlError"
import { type PauseBreachRecorder, PolicyEngine, type TransactionRiskInput } from "../../src/policy/policyEngine.js"
import { RiskConfigRepo } from "../../src/risk/riskConfigRepo.js"
import { startTestLedger } from "../support/ledger.js"
import { type EngineHarness, startEngine } from "./engineHarness.js"

const SYSTEM_PROGRAM = "11111111111111111111111111111111"
const DEST = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"

let engine: EngineHarness
// the portfolio breach test values its wallet on a ledger (docs/decisions/portfolio.md)
let ledger: Awaited<ReturnType<typeof startTestLedger>>
beforeAll(async () => {
  ledger = await startTestLedger()
  engine = await startEngine({}, ledger.rpcUrl)
}, 60_000)
afterAll(async () => {
  await engine?.stop()
  await ledger?.close()
})

const transfer = (walletId: string, lamports: bigint, overrides: Partial<TransactionRiskInput> = {}): TransactionRiskInput => ({
  txId: randomUUID(),
  tenantId: "default",
  walletId,
  agentId: null,
  type: "transfer_sol",
  protocol: "system-program",
  intent: { to: DEST, lamports: Number(lamports) },
  facts: { destination: DEST, amountLamports: lamports, programIds: [SYSTEM_PROGRAM] },
  preBalanceLamports: 100_000_000_000n,
  gasless: false,
  requireApproval: false,
  timestamp: new Date(),
  ...overrides
})

const decide = (input: TransactionRiskInput) => engine.run(Effect.flatMap(PolicyEngine, (e) => e.decideForTransaction(input)))

describe("policy store under concurrency", () => {
  it("admits exactly 7 of 50 concurrent transfers against a daily limit of 7 transfers", async () => {
    const wallet = await engine.createWallet()
    await engine.createPolicy(wallet, [{ type: "spending_limit", maxLamportsPerDay: 7_000_000 }])
    const decisions = await Promise.all(Array.from({ length: 50 }, () => decide(transfer(wallet, 1_000_000n))))
    const allowed = decisions.filter((d) => d.decision === "allow")
    const denied = decisions.filter((d) => d.decision === "deny")
    expect(allowed).toHaveLength(7)
    expect(denied).toHaveLength(43)
    for (const d of denied) expect(d.reasons.join(" ")).toContain("maxLamportsPerDay 7000000")
  }, 60_000)

  it("returns the stored decision for a repeated txId and counts its spend once", async () => {
    const wallet = await engine.createWallet()
    await engine.createPolicy(wallet, [{ type: "spending_limit", maxLamportsPerDay: 2_000_000 }])
    const input = transfer(wallet, 1_000_000n)
    const first = await decide(input)
    const again = await decide(input)
    expect(first.decision).toBe("allow")
    expect(again).toMatchObject({ decision: first.decision, reasons: first.reasons, riskTier: first.riskTier })
    expect((await decide(transfer(wallet, 1_000_000n))).decision).toBe("allow")
    expect((await decide(transfer(wallet, 1_000_000n))).decision).toBe("deny")
  })

  it("records a repeated txId's spend once for a wallet with nothing to check (the one-statement path)", async () => {
    // The pipeline relies on this: a run that dies after the decision and before its transition is
    // written builds again and asks again.
    const wallet = await engine.createWallet()
    const input = transfer(wallet, 1_000_000n)
    const first = await decide(input)
    const again = await decide(input)
    expect(first.decision).toBe("allow")
    expect(again.decision).toBe("allow")
    const spent = await engine.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ total: string }>`
        SELECT COALESCE(sum(spent_lamports), 0)::text AS total FROM policy_daily_spend WHERE wallet_id = ${wallet}
      `)
    )
    expect(spent[0]?.total).toBe("1000000")
  })

  it("gives the budget back when a transaction's spend is released, once", async () => {
    const wallet = await engine.createWallet()
    await engine.createPolicy(wallet, [{ type: "spending_limit", maxLamportsPerDay: 1_000_000 }])
    const spent = transfer(wallet, 1_000_000n)
    expect((await decide(spent)).decision).toBe("allow")
    expect((await decide(transfer(wallet, 1_000_000n))).decision).toBe("deny")
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.releaseSpend(spent.txId)))
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.releaseSpend(spent.txId)))
    expect((await decide(transfer(wallet, 1_000_000n))).decision).toBe("allow")
    expect((await decide(transfer(wallet, 1_000_000n))).decision).toBe("deny")
  })

  it("reserves a require_approval's spend at the gate, counts it once when approved, and gives it back when rejected", async () => {
    const wallet = await engine.createWallet()
    await engine.createPolicy(wallet, [{ type: "spending_limit", maxLamportsPerDay: 1_500_000, requireApprovalAboveLamports: 500_000 }])
    const pending = transfer(wallet, 1_000_000n)
    expect((await decide(pending)).decision).toBe("require_approval")
    // The waiting 1,000,000 already counts: 600,000 more would pass the limit, 400,000 does not.
    expect((await decide(transfer(wallet, 600_000n))).decision).toBe("deny")
    expect((await decide(transfer(wallet, 400_000n))).decision).toBe("allow")
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.onApproved(pending.txId)))
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.onApproved(pending.txId)))
    expect((await decide(transfer(wallet, 200_000n))).decision).toBe("deny")
    expect((await decide(transfer(wallet, 100_000n))).decision).toBe("allow")

    const other = await engine.createWallet()
    await engine.createPolicy(other, [{ type: "spending_limit", maxLamportsPerDay: 1_000_000, requireApprovalAboveLamports: 0 }])
    const rejected = transfer(other, 1_000_000n)
    expect((await decide(rejected)).decision).toBe("require_approval")
    expect((await decide(transfer(other, 1_000_000n))).decision).toBe("deny")
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.releaseSpend(rejected.txId)))
    expect((await decide(transfer(other, 1_000_000n))).decision).toBe("require_approval")
  })

  it("starts a retried transaction over: its spend is given back once and the next decision is fresh", async () => {
    const wallet = await engine.createWallet()
    await engine.createPolicy(wallet, [{ type: "spending_limit", maxLamportsPerDay: 1_000_000 }])
    const retried = transfer(wallet, 1_000_000n)
    expect((await decide(retried)).decision).toBe("allow")
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.startOver(retried.txId)))
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.startOver(retried.txId)))
    // Fresh: the same transaction decides again and counts again; a second transfer no longer fits.
    expect((await decide(retried)).decision).toBe("allow")
    expect((await decide(transfer(wallet, 1n))).decision).toBe("deny")
    // Released before the retry (it failed before submission): starting over gives nothing back twice.
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.releaseSpend(retried.txId)))
    await engine.run(Effect.flatMap(PolicyEngine, (e) => e.startOver(retried.txId)))
    expect((await decide(transfer(wallet, 1_000_000n))).decision).toBe("allow")
    expect((await decide(transfer(wallet, 1n))).decision).toBe("deny")
  })

  it("stores an agent's portfolio breach with its deny, in one SQL transaction", async () => {
    const wallet = await engine.createWallet()
    await engine.run(Effect.flatMap(RiskConfigRepo, (r) => r.putPortfolio("default", wallet, { maxDailyLossLamports: 300_000_000n, autoPauseOnBreach: true })))
    const spend = transfer(wallet, 500_000_000n, { agentId: randomUUID() })
    const decideRecording = (recorder: PauseBreachRecorder) => engine.run(Effect.flatMap(PolicyEngine, (e) => e.decideForTransaction(spend, recorder)))
    const storedDecision = () => engine.run(Effect.flatMap(PolicyEngine, (e) => e.decisionOf(spend.txId)))

    // The breach cannot be stored (a fault): the decision is not stored either, and the run fails closed.
    const faulted = await decideRecording(() => Effect.fail(new SqlError({ message: "breach store down" })))
    expect(faulted.decision).toBe("deny")
    expect(await storedDecision()).toBeUndefined()

    // Stored: the breach is recorded with the deny's reasons, once; the repeat decision records nothing more.
    const recorded: Array<ReadonlyArray<string>> = []
    const recordBreach: PauseBreachRecorder = (reasons) => Effect.sync(() => recorded.push(reasons))
    const denied = await decideRecording(recordBreach)
    expect(denied).toMatchObject({ decision: "deny", pauseAgent: true })
    expect(recorded).toEqual([denied.reasons])
    expect(recorded[0]!.join(" ")).toMatch(/daily loss \d+ exceeds maxDailyLossLamports 300000000/)
    expect((await storedDecision())?.decision.decision).toBe("deny")
    expect((await decideRecording(recordBreach)).decision).toBe("deny")
    expect(recorded).toHaveLength(1)
  })

  it("denies when a stored rule is corrupted", async () => {
    const wallet = await engine.createWallet()
    const policyId = await engine.createPolicy(wallet, [{ type: "max_slippage", maxBps: 100 }])
    await engine.run(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`UPDATE policies SET rules = '[{"type":"max_slippage","maxBps":"lots"}]'::jsonb WHERE id = ${policyId}`)
    )
    const decision = await decide(transfer(wallet, 1n))
    expect(decision.decision).toBe("deny")
    expect(decision.reasons.join(" ")).toContain("rules[0]")
  })

  it("denies, never fails, when the policy store is unreachable", async () => {
    const wallet = await engine.createWallet()
    const sqlRun = (statement: string) => engine.run(Effect.flatMap(SqlClient.SqlClient, (sql) => sql.unsafe(statement)))
    await sqlRun("ALTER TABLE policies RENAME TO policies_gone")
    try {
      const decision = await decide(transfer(wallet, 1n))
      expect(decision.decision).toBe("deny")
      expect(decision.reasons[0]).toMatch(/^policy engine unavailable/)
    } finally {
      await sqlRun("ALTER TABLE policies_gone RENAME TO policies")
    }
  })
})
