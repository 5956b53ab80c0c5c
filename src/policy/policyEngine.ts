/**
 * The policy engine the transaction pipeline calls. `decideForTransaction` runs gasless eligibility,
 * the protocol risk config, the wallet's portfolio risk controls and every active policy of the wallet
 * in ONE SQL transaction under the wallet's lock: it reads the exact state (daily spend, rate events),
 * decides, writes the effects, the decision (keyed by txId: a repeat returns the stored decision and
 * counts nothing twice) and the `policy.evaluated` audit event. It never fails with an error: any error,
 * defect or timeout is a deny naming the engine as unavailable (fail closed), except a lost database
 * connection, which is no verdict and dies as that defect (nothing decided or counted; decided again).
 */
import { SqlClient } from "@effect/sql"
import type { SqlError } from "@effect/sql/SqlError"
import { Cause, Duration, Effect, Option } from "effect"
import { typeFactsOf } from "../protocols/registry.js"
import type { EvaluateRequest, PolicyDecision, PortfolioRiskControls, ProtocolRiskConfig } from "../../schemas/policy.js"
import { NotFound } from "../../schemas/errors.js"
import { makeStatementBatch } from "../db/statementBatch.js"
import { AuditLog } from "../audit/auditLog.js"
import { policyEvaluationMetric } from "../audit/metricNames.js"
import { AppConfig } from "../config.js"
import type { CallerInfo } from "../gateway/caller.js"
import { hotSpan } from "../observability/tracing.js"
import { PortfolioProjector } from "../risk/portfolioProjection.js"
import { defaultPortfolioControls, RiskConfigRepo } from "../risk/riskConfigRepo.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import { ValueLimitStore } from "../risk/valueLimits.js"
import { withValueLimits } from "./valueLimitOutcome.js"
import { transactionTrace, withTrace } from "./transactionTrace.js"
import { explainPolicies } from "./explainDecision.js"
import { shadowVerdicts, withShadow } from "./shadowDecisions.js"
import { aggregateOutcomes } from "./aggregate.js"
import { CompiledPolicyCache } from "./compiledPolicyCache.js"
import type { CompiledPolicy } from "./compileRules.js"
import { evaluatePolicies } from "./evaluate.js"
import { evaluationInstant, rateLimitKey, type EvaluationState, type PolicyEffects, type TransactionFacts } from "./evaluationState.js"
import { PolicyRepo } from "./policyRepo.js"
import { PolicyStore } from "./policyStore.js"
import { requiredState } from "./requiredState.js"
import { deriveRiskTier } from "./riskTier.js"
import { effectCheck } from "./effectJudgement.js"
import { withEngineDeadline } from "./engineDeadline.js"
import { isConnectionLoss } from "../db/connectionLoss.js"
import { recordIfUnconstrained, type UnconstrainedRecord } from "./unconstrainedDecision.js"
import { utcDayKey } from "./utcTime.js"
import { makeWhatIfReadBatch } from "./whatIfReadBatch.js"
import type { WhatIfSnapshot } from "./whatIfSnapshot.js"
import {
  approvalRequestedCheck,
  gaslessCheck,
  hasPortfolioLimits,
  portfolioControlsCheck,
  protocolConfigCheck,
  toRequest,
  type TransactionRiskInput
} from "./transactionRisk.js"

export type { TransactionRiskInput } from "./transactionRisk.js"

/** Records an agent's breach (its spend denied by portfolio controls with autoPauseOnBreach), given the deny's reasons. */
export type PauseBreachRecorder = (reasons: ReadonlyArray<string>) => Effect.Effect<unknown, SqlError>

/** The decision plus whether the owning agent should be paused (portfolio breach with autoPauseOnBreach). */
export interface TransactionDecision extends PolicyDecision {
  readonly pauseAgent: boolean
}

export const ENGINE_TIMEOUT = Duration.seconds(20)
const withinEngineTimeout = withEngineDeadline(ENGINE_TIMEOUT)
export const EVALUATIONS_METRIC = "policy.evaluations"

const unavailableReason = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  const text = error instanceof Error ? `${error.message}${error.cause instanceof Error ? `: ${error.cause.message}` : ""}` : String(error)
  return `policy engine unavailable: ${text.split("\n")[0].slice(0, 200)}`
}

/**
 * A decision whose store read met a lost connection (PostgreSQL restarted, failed over, ended it) is not a
 * verdict: it fails as that defect, so nothing was decided or counted (its SQL transaction rolled back),
 * a pipeline worker gives the job back and decides again on a new connection, and a what-if answers 503.
 * Any other failure still denies (fail closed).
 */
const lostConnection = (cause: Cause.Cause<unknown>) => Effect.die(Cause.squash(cause))

export class PolicyEngine extends Effect.Service<PolicyEngine>()("PolicyEngine", {
  dependencies: [PolicyRepo.Default, PolicyStore.Default, RiskConfigRepo.Default, WalletRepo.Default, PortfolioProjector.Default, ValueLimitStore.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* PolicyRepo
    const store = yield* PolicyStore
    const risk = yield* RiskConfigRepo
    const wallets = yield* WalletRepo
    const portfolios = yield* PortfolioProjector
    const valueLimits = yield* ValueLimitStore
    const audit = yield* AuditLog
    const config = yield* AppConfig
    const relayConfigured = Option.isSome(config.chain.gaslessRpcUrl)
    const exporting = Option.isSome(config.observability.otlpEndpoint)
    const cache = new CompiledPolicyCache()
    const whatIfReads = makeWhatIfReadBatch(sql)

    const loadPolicies = (walletId: string, tenantId: string) =>
      repo.activeForWallet(walletId, tenantId).pipe(Effect.map((rows) => rows.map((row) => cache.compile(row))))

    /** The wallet's shadow policies (issue 34), compiled; evaluated beside the decision, never enforced. */
    const loadShadows = (walletId: string, tenantId: string) =>
      repo.shadowForWallet(walletId, tenantId).pipe(Effect.map((rows) => rows.map((row) => cache.compile(row))))

    /** The snapshot the evaluator needs, read inside the caller's transaction (under the lock when deciding). */
    const readState = (
      policies: ReadonlyArray<CompiledPolicy>,
      request: EvaluateRequest,
      tenantId: string,
      now: Date,
      extra: TransactionFacts & { portfolio: boolean; observe: boolean; tokenOutflow?: { mint: string; amount: bigint } },
      known?: Pick<WhatIfSnapshot, "dailySpentLamports" | "rateCounts">
    ) =>
      Effect.gen(function* () {
        const required = requiredState(policies, request, now)
        const dailySpentLamports = !required.dailySpend
          ? undefined
          : known !== undefined
            ? known.dailySpentLamports
            : yield* store.dailySpent(request.walletId, required.utcDay)
        // Windows the snapshot did not count (a rule it could not read as a plain integer) are read here.
        const missing = required.rateWindowsSeconds.filter((seconds) => known?.rateCounts.has(seconds) !== true)
        const read = missing.length > 0 ? yield* store.rateCounts(required.rateKey, missing, required.instant) : undefined
        const rateCounts =
          required.rateWindowsSeconds.length > 0
            ? new Map(required.rateWindowsSeconds.map((seconds) => [seconds, known?.rateCounts.get(seconds) ?? read?.get(seconds) ?? 0]))
            : undefined
        // Only a wallet with a portfolio limit pays for the valuation (chain and oracle reads): a decision values
        // fresh and records the value, a what-if shares a recent valuation (docs/decisions/portfolio.md).
        const projected = required.portfolioMetrics || extra.portfolio
          ? yield* (extra.observe ? portfolios.forDecision : portfolios.forWhatIf)({
              tenantId, walletId: request.walletId, utcDay: required.utcDay, solLamports: extra.preBalanceLamports,
              protocol: request.protocol, tokenMint: request.tokenMint, outputMint: extra.outputMint, amountLamports: request.amountLamports,
              tokenOutflow: extra.tokenOutflow
            })
          : undefined
        const state: EvaluationState = {
          now,
          dailySpentLamports,
          rateCounts,
          portfolio: projected?.metrics,
          portfolioUnavailable: projected?.unavailable,
          transaction: {
            preBalanceLamports: extra.preBalanceLamports,
            pool: extra.pool,
            quoteAgeSeconds: extra.quoteAgeSeconds,
            oracleDeviationBps: extra.oracleDeviationBps,
            outputMint: extra.outputMint,
            effect: extra.effect
          }
        }
        return state
      })

    /** Audits and counts a decision; a what-if's event is queued for a batched insert (nothing is atomic with it). */
    const report = (tenantId: string, decision: PolicyDecision, context: { txId?: string; walletId: string; agentId?: string | null; protocol: string; traceId?: string | undefined; source: "transaction" | "evaluate" | "signing" }) =>
      Effect.gen(function* () {
        yield* (context.source === "evaluate" ? audit.recordSoon : audit.record)({
          tenantId,
          eventType: "policy.evaluated",
          message: `policy decision ${decision.decision}${decision.reasons.length > 0 ? `: ${decision.reasons[0]}` : ""}`,
          metadata: {
            txId: context.txId ?? null, source: context.source, decision: decision.decision, reasons: decision.reasons, riskTier: decision.riskTier,
            ...(decision.shadow === undefined ? {} : { shadow: decision.shadow })
          },
          txId: context.txId ?? null,
          walletId: context.walletId,
          agentId: context.agentId ?? null,
          protocol: context.protocol,
          entityType: "policy",
          category: "policy",
          traceId: context.traceId ?? null
        })
        yield* audit.increment(policyEvaluationMetric(decision.decision))
        yield* audit.increment(EVALUATIONS_METRIC)
      })

    /**
     * The decision from what was read (pure): gasless, protocol config, portfolio controls, policies,
     * requested approval; and its effects per decisions/policy.md: allow counts spend and rate events
     * now; require_approval counts rate events now and reserves the spend at the gate (given back on
     * reject or expiry), so approving every waiting transaction cannot pass a daily limit; deny counts nothing.
     */
    const combine = (
      input: TransactionRiskInput,
      protocolConfig: ProtocolRiskConfig | undefined,
      controls: PortfolioRiskControls,
      policies: ReadonlyArray<CompiledPolicy>,
      state: EvaluationState
    ) => {
      const controlsOutcome = portfolioControlsCheck(controls, state.portfolio, state.portfolioUnavailable)
      const evaluation = evaluatePolicies(policies, toRequest(input), state)
      const combined = aggregateOutcomes([
        gaslessCheck(input, protocolConfig, relayConfigured),
        protocolConfigCheck(input, protocolConfig),
        effectCheck(input, policies),
        controlsOutcome,
        { decision: evaluation.decision, reasons: evaluation.reasons },
        approvalRequestedCheck(input.requireApproval)
      ])
      const decision: PolicyDecision = { decision: combined.decision, reasons: combined.reasons, riskTier: evaluation.riskTier }
      let effects: PolicyEffects | null = null
      let approvalSpend: bigint | null = null
      if (decision.decision === "allow") effects = evaluation.effects
      if (decision.decision === "require_approval") {
        approvalSpend = input.facts.amountLamports ?? 0n
        effects = { ...evaluation.effects, addDailySpendLamports: approvalSpend }
      }
      // a breach: metrics over a limit (a value that could not be computed denies, but is no breach)
      const pauseAgent = controlsOutcome.decision === "deny" && state.portfolio !== undefined && controls.autoPauseOnBreach && input.agentId !== null
      return { decision, effects, approvalSpend, pauseAgent }
    }

    const transactionFacts = (input: TransactionRiskInput) => ({
      preBalanceLamports: input.preBalanceLamports,
      ...(input.facts.pool === undefined ? {} : { pool: input.facts.pool }),
      ...(input.facts.quoteAgeSeconds === undefined ? {} : { quoteAgeSeconds: input.facts.quoteAgeSeconds }),
      ...(input.facts.oracleDeviationBps === undefined ? {} : { oracleDeviationBps: input.facts.oracleDeviationBps }),
      ...(input.facts.outputMint === undefined ? {} : { outputMint: input.facts.outputMint }),
      ...(input.facts.effect === undefined ? {} : { effect: input.facts.effect })
    })

    /**
     * `onPauseBreach` records the agent's breach inside the decision's own SQL transaction: a run that
     * dies after the decision is stored finds the breach stored too (a repeat decision does not repeat it).
     */
    const decideLocked = (input: TransactionRiskInput, onPauseBreach: PauseBreachRecorder) =>
      sql.withTransaction(
        Effect.gen(function* () {
          yield* store.lockWallet(input.walletId)
          const existing = yield* store.findDecision(input.txId)
          if (existing !== undefined) return { decision: existing.decision, pauseAgent: false }
          const protocolConfig = yield* risk.findProtocol(input.tenantId, input.protocol)
          const controls = yield* risk.findPortfolio(input.walletId, input.tenantId)
          const policies = yield* loadPolicies(input.walletId, input.tenantId)
          const shadows = yield* loadShadows(input.walletId, input.tenantId)
          const state = yield* readState([...policies, ...shadows], toRequest(input), input.tenantId, new Date(), {
            ...transactionFacts(input),
            portfolio: hasPortfolioLimits(controls),
            observe: true,
            // a token payment also takes the value of the tokens it sends
            ...(typeFactsOf(input.type)?.sendsTokens === true && input.facts.tokenMint !== undefined && input.facts.tokenAmount !== undefined
              ? { tokenOutflow: { mint: input.facts.tokenMint, amount: input.facts.tokenAmount } }
              : {})
          })
          // Value limits (issue 34): judged and reserved under the same lock, with the decision (valueLimits.ts).
          const subject = { tenantId: input.tenantId, walletId: input.walletId, agentId: input.agentId }
          const limits = yield* valueLimits.judge(subject, input.facts, state.now)
          const combined = withValueLimits(combine(input, protocolConfig, controls, policies, state), limits.denied)
          const { effects, approvalSpend, pauseAgent } = combined
          // Recorded with its trace (issue 34): /replay shows what each check saw.
          const traced = withTrace(combined.decision, transactionTrace({ input, protocolConfig, controls, policies, state, relayConfigured, valueLimitsDenied: limits.denied, value: limits.value }))
          const decision = withShadow(traced, shadowVerdicts(shadows, toRequest(input), state, traced.decision))
          if (decision.decision !== "deny" && limits.value !== undefined) yield* valueLimits.reserve(input.txId, subject, limits.value)
          if (effects !== null) yield* store.applyEffects(input.txId, input.walletId, effects)
          yield* store.recordDecision(input.txId, input.tenantId, input.walletId, decision, approvalSpend)
          if (pauseAgent) yield* onPauseBreach(decision.reasons)
          yield* report(input.tenantId, decision, { ...input, source: "transaction" })
          return { decision, pauseAgent }
        })
      )

    // Concurrent fast-path decisions share one statement (statementBatch.ts).
    const unconstrainedRecords = makeStatementBatch(
      (records: ReadonlyArray<UnconstrainedRecord>) => recordIfUnconstrained(sql, records),
      { maxBatch: 64, repeatable: false }
    )

    /** The fast path (unconstrainedDecision.ts) when the wallet has nothing to check; else the locked path. */
    const decide = (input: TransactionRiskInput, onPauseBreach: PauseBreachRecorder) =>
      Effect.gen(function* () {
        // The decision an unconstrained wallet gets; recorded only if the wallet is indeed unconstrained.
        const state: EvaluationState = { now: new Date(), transaction: transactionFacts(input) }
        const { decision, effects, approvalSpend } = combine(input, undefined, defaultPortfolioControls(input.walletId), [], state)
        const recorded = yield* unconstrainedRecords.submit({ target: input, decision, effects, approvalSpendLamports: approvalSpend })
        if (!recorded) return yield* decideLocked(input, onPauseBreach)
        yield* audit.increment("audit_event.policy.evaluated")
        yield* audit.increment(policyEvaluationMetric(decision.decision))
        yield* audit.increment(EVALUATIONS_METRIC)
        return { decision, pauseAgent: false }
      })

    const decideForTransaction = (input: TransactionRiskInput, onPauseBreach: PauseBreachRecorder = () => Effect.void): Effect.Effect<TransactionDecision> =>
      decide(input, onPauseBreach).pipe(
        withinEngineTimeout,
        Effect.map(({ decision, pauseAgent }): TransactionDecision => ({ ...decision, pauseAgent })),
        Effect.catchAllCause((cause) => {
          if (isConnectionLoss(cause)) return lostConnection(cause)
          const decision: PolicyDecision = {
            decision: "deny",
            reasons: [unavailableReason(cause)],
            riskTier: deriveRiskTier({ type: input.type, amountLamports: input.facts.amountLamports })
          }
          return Effect.logWarning("policy engine failed closed", { txId: input.txId }, Cause.pretty(cause)).pipe(
            Effect.zipRight(report(input.tenantId, decision, { ...input, source: "transaction" }).pipe(Effect.catchAllCause(() => Effect.void))),
            Effect.as({ ...decision, pauseAgent: false })
          )
        }),
        hotSpan(exporting, "PolicyEngine.decideForTransaction")
      )

    /**
     * Policy again for an approved transaction about to be signed (issue 31, docs/decisions/approvals.md): the
     * wallet's policies, configs and state as they are now, with the transaction's own spend and rate events
     * (counted at the gate) left out, so a rule tightened while it waited applies and nothing counts twice.
     * Writes nothing but its `policy.evaluated` event (source `signing`); fails closed to deny.
     */
    const recheckForSigning = (input: TransactionRiskInput): Effect.Effect<PolicyDecision> =>
      sql.withTransaction(
        Effect.gen(function* () {
          yield* store.lockWallet(input.walletId)
          const [protocolConfig, controls, policies] = [yield* risk.findProtocol(input.tenantId, input.protocol), yield* risk.findPortfolio(input.walletId, input.tenantId), yield* loadPolicies(input.walletId, input.tenantId)]
          const now = new Date()
          const request = toRequest(input)
          const required = requiredState(policies, request, now)
          const own = yield* store.ownUsage(input.txId, required.utcDay, required.rateWindowsSeconds, required.instant)
          const counted = yield* store.rateCounts(required.rateKey, required.rateWindowsSeconds, required.instant)
          const spent = (yield* store.dailySpent(input.walletId, required.utcDay)) - own.spentLamports
          const known = {
            dailySpentLamports: spent > 0n ? spent : 0n,
            rateCounts: new Map(required.rateWindowsSeconds.map((seconds) => [seconds, Math.max(0, (counted.get(seconds) ?? 0) - (own.rateCounts.get(seconds) ?? 0))]))
          }
          const state = yield* readState(policies, request, input.tenantId, now, { ...transactionFacts(input), portfolio: hasPortfolioLimits(controls), observe: false }, known)
          const { decision } = combine(input, protocolConfig, controls, policies, state)
          yield* report(input.tenantId, decision, { ...input, source: "signing" })
          return decision
        })
      ).pipe(
        withinEngineTimeout,
        Effect.catchAllCause((cause) =>
          isConnectionLoss(cause)
            ? lostConnection(cause)
            : Effect.succeed<PolicyDecision>({ decision: "deny", reasons: [unavailableReason(cause)], riskTier: deriveRiskTier({ type: input.type, amountLamports: input.facts.amountLamports }) })
        )
      )

    /**
     * A human approved: marks the decision approved (its spend was reserved at the gate), once per tx.
     * Called in the approval's own SQL transaction. Dies on SQL errors.
     */
    const onApproved = (txId: string): Effect.Effect<void> =>
      store.approve(txId, new Date()).pipe(Effect.orDie, Effect.withSpan("PolicyEngine.onApproved"))

    /**
     * [n7] A retry starts over: the earlier attempt's spend is given back and its decision forgotten, so
     * the next attempt decides against the wallet's policies as they are then and counts its own spend.
     * Called in the retry's SQL transaction. Dies on SQL errors.
     */
    const startOver = (txId: string): Effect.Effect<void> =>
      store.startOver(txId).pipe(Effect.zipRight(valueLimits.release(txId)), Effect.orDie, Effect.withSpan("PolicyEngine.startOver"))

    /** The transaction failed before submission: its daily spend and reserved value are given back (idempotent). Dies on SQL errors. */
    const releaseSpend = (txId: string): Effect.Effect<void> =>
      store.release(txId).pipe(Effect.zipRight(valueLimits.release(txId)), Effect.orDie, Effect.withSpan("PolicyEngine.releaseSpend"))

    /** The stored decision of a transaction, if any. */
    const decisionOf = (txId: string) => store.findDecision(txId).pipe(Effect.orDie)

    /**
     * POST /evaluate: a what-if over the wallet's active policies, with the current exact state; it
     * writes no effects (no spend, no rate event) but is audited and counted. Fails closed to deny.
     * One statement reads it all, shared by concurrent calls (whatIfReadBatch.ts); if it fails, the
     * separate reads run instead, so a failure answers as they would (404, or deny naming the engine).
     * One bound covers the reads and the decision (a timeout is a race of two fibers, about 30 us, so
     * one per request); past it the answer is deny.
     */
    const evaluate = (caller: CallerInfo, request: EvaluateRequest) =>
      Effect.gen(function* () {
        const now = new Date()
        const instant = evaluationInstant(request, now)
        // Known once the wallet is read: a decision that ran out of time is still audited under its tenant.
        let tenantId: string | undefined
        const decision = yield* Effect.gen(function* () {
          const snapshot = yield* whatIfReads.read({
            walletId: request.walletId,
            readTenant: caller.readTenant,
            utcDay: utcDayKey(instant),
            rateKey: rateLimitKey(request),
            instant
          }).pipe(
            Effect.map(Option.some),
            Effect.catchAllCause(() => Effect.succeedNone)
          )
          tenantId = Option.isSome(snapshot)
            ? snapshot.value?.tenantId
            : (yield* wallets.find(request.walletId, caller.readTenant))?.tenantId
          if (tenantId === undefined) return yield* Effect.fail(new NotFound({ resource: "wallet", id: request.walletId }))
          const known = Option.getOrUndefined(snapshot)
          const policies = known !== undefined ? known.policies.map((row) => cache.compileText(row.policy, row.rulesText)) : yield* loadPolicies(request.walletId, tenantId)
          const state = yield* readState(policies, request, tenantId, now, { portfolio: false, observe: false }, known)
          const evaluation = evaluatePolicies(policies, request, state)
          const explained = request.explain === true ? { trace: explainPolicies(policies, request, state) } : {}
          return { decision: evaluation.decision, reasons: evaluation.reasons, riskTier: evaluation.riskTier, ...explained } satisfies PolicyDecision
        }).pipe(
          withinEngineTimeout,
          Effect.catchAllCause((cause) => {
            const failure = Cause.failureOption(cause)
            if (isConnectionLoss(cause)) return lostConnection(cause)
            return Option.isSome(failure) && failure.value instanceof NotFound
              ? Effect.fail(failure.value)
              : Effect.succeed<PolicyDecision>({ decision: "deny", reasons: [unavailableReason(cause)], riskTier: deriveRiskTier(request) })
          })
        )
        if (tenantId !== undefined) {
          yield* report(tenantId, decision, { walletId: request.walletId, agentId: request.agentId ?? null, protocol: request.protocol, traceId: caller.traceId, source: "evaluate" }).pipe(
            Effect.catchAllCause((cause) => Effect.logWarning("policy.evaluated audit failed", Cause.pretty(cause)))
          )
        }
        return decision
      }).pipe(hotSpan(exporting, "PolicyEngine.evaluate"))

    return { decideForTransaction, recheckForSigning, onApproved, releaseSpend, startOver, decisionOf, evaluate }
  })
}) {}
