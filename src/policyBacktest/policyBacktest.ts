/**
 * Policy backtests (issue 34 item 2, docs/decisions/backtest.md): a candidate policy (rules, or a stored
 * policy at a version) replayed over a wallet's recorded transactions of the last N days; per transaction the
 * decision it would have had with its trace, and a summary (would deny, would ask approval, value blocked).
 * Nothing runs on chain and nothing is written. The wallet must be the caller's (404 otherwise).
 */
import { Effect, Schema } from "effect"
import { PolicyRules } from "../../schemas/policy.js"
import { NotFound, ValidationError } from "../../schemas/errors.js"
import type { PolicyBacktest, PolicyBacktestBody } from "../../schemas/policyBacktest.js"
import type { CallerInfo } from "../gateway/caller.js"
import { RecordedTransactions } from "../pipeline/recordedTransactions.js"
import { compileRules, type CompiledPolicy } from "../policy/compileRules.js"
import { PolicyRepo } from "../policy/policyRepo.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import { replayDecisions } from "./replayDecisions.js"

/** The compiler reads rules as stored (encoded JSON), as the engine's cache does. */
const storedForm = Schema.encodeSync(PolicyRules)

/** At most this many transactions are replayed (the oldest of the window first). */
const MAX_REPLAYED = 5_000

export class PolicyBacktests extends Effect.Service<PolicyBacktests>()("PolicyBacktests", {
  dependencies: [PolicyRepo.Default, WalletRepo.Default, RecordedTransactions.Default],
  effect: Effect.gen(function* () {
    const wallets = yield* WalletRepo
    const policies = yield* PolicyRepo
    const recorded = yield* RecordedTransactions

    const candidateOf = (caller: CallerInfo, body: PolicyBacktestBody, walletId: string) =>
      Effect.gen(function* () {
        if ((body.rules === undefined) === (body.policyId === undefined)) {
          return yield* Effect.fail(new ValidationError({ message: "rules: give the candidate's rules, or a policyId (with a version), not both", field: "rules" }))
        }
        if (body.rules !== undefined) {
          const candidate: CompiledPolicy = { id: "candidate", walletId, name: "candidate", version: 1, active: true, rules: compileRules(storedForm(body.rules)) }
          return { candidate, policyId: null, version: null }
        }
        const policyId = body.policyId ?? ""
        const stored = body.version === undefined ? yield* policies.find(policyId, caller.readTenant) : yield* policies.findVersion(policyId, body.version, caller.readTenant)
        if (stored === undefined) return yield* Effect.fail(new NotFound({ resource: body.version === undefined ? "policy" : `version ${body.version} of policy`, id: policyId }))
        const candidate: CompiledPolicy = { id: stored.policy.id, walletId, name: stored.policy.name, version: stored.policy.version, active: true, rules: compileRules(JSON.parse(stored.rulesText)) }
        return { candidate, policyId: stored.policy.id, version: stored.policy.version }
      })

    const run = (caller: CallerInfo, body: PolicyBacktestBody) =>
      Effect.gen(function* () {
        const wallet = yield* wallets.find(body.walletId, caller.readTenant)
        if (wallet === undefined) return yield* Effect.fail(new NotFound({ resource: "wallet", id: body.walletId }))
        const { candidate, policyId, version } = yield* candidateOf(caller, body, body.walletId)
        const to = new Date()
        const from = new Date(to.getTime() - body.days * 86_400_000)
        const rows = yield* recorded.ofWalletSince(body.walletId, wallet.tenantId, from, MAX_REPLAYED)
        const replayed = replayDecisions(body.walletId, candidate, rows)
        const count = (decision: string) => replayed.filter((entry) => entry.decision === decision).length
        const blocked = replayed.filter((entry) => entry.decision === "deny").reduce((sum, entry) => sum + entry.amountLamports, 0n)
        const answer: PolicyBacktest = {
          walletId: body.walletId, days: body.days, from: from.toISOString(), to: to.toISOString(),
          candidate: { policyId, version, rules: candidate.rules.length },
          transactions: replayed.map((entry) => ({ ...entry, amountLamports: entry.amountLamports.toString() })),
          summary: {
            total: replayed.length, wouldAllow: count("allow"), wouldDeny: count("deny"), wouldAskApproval: count("require_approval"),
            changed: replayed.filter((entry) => entry.changed).length, valueBlockedLamports: blocked.toString()
          }
        }
        return answer
      }).pipe(Effect.withSpan("PolicyBacktests.run"))

    return { run }
  })
}) {}
