/**
 * The supervisor's pass over breaches. First every confirmed agent transaction whose delta guard
 * failed becomes an `agent_breaches` row (once per transaction: a unique index). Then each unhandled
 * breach pauses its agent through the agents core's automatic pause (running autonomous agents only,
 * `agent.paused` with the reason) when the wallet's portfolio controls say `autoPauseOnBreach`
 * (default true; unreadable controls count as true: fail closed), and is marked handled. A crash
 * between pause and mark repeats the pause, which the conditional transition makes harmless.
 */
import { Effect } from "effect"
import { TransactionSummaries } from "../../pipeline/transactionSummaries.js"
import { RiskConfigRepo } from "../../risk/riskConfigRepo.js"
import { AgentBreaches, pauseReasonOf } from "../agentBreaches.js"
import { AgentRepo } from "../agentRepo.js"
import { AgentService } from "../agentService.js"

/** [n9] The transaction itself stays `confirmed` (it landed; the breach is in its deltaGuard); the agent pauses. */
export const recordDeltaGuardBreaches = Effect.gen(function* () {
  const failures = yield* (yield* TransactionSummaries).agentDeltaGuardFailures
  return yield* (yield* AgentBreaches).recordDeltaGuardFailures(
    failures.map((failure) => ({
      ...failure,
      reason: `transaction ${failure.txId}: ${failure.reason ?? "balance change outside the delta guard"}`
    }))
  )
})

export const handleBreaches = Effect.gen(function* () {
  const breaches = yield* AgentBreaches
  const agents = yield* AgentService
  const repo = yield* AgentRepo
  const risk = yield* RiskConfigRepo
  yield* recordDeltaGuardBreaches
  const pending = yield* breaches.listUnhandled()
  let paused = 0
  for (const breach of pending) {
    const stored = yield* repo.findSystem(breach.agentId)
    if (stored !== undefined) {
      const autoPause = yield* risk.findPortfolio(stored.agent.walletId, stored.tenantId).pipe(
        Effect.map((controls) => controls.autoPauseOnBreach),
        Effect.orElseSucceed(() => true)
      )
      const reason = pauseReasonOf(breach)
      if (autoPause && (yield* agents.pauseForBreach(breach.agentId, reason)) === "paused") paused += 1
      if (!autoPause) yield* Effect.logInfo(`agent ${breach.agentId}: ${reason}; not paused (autoPauseOnBreach is false)`)
    }
    yield* breaches.markHandled(breach.id)
  }
  return { handled: pending.length, paused }
}).pipe(Effect.withSpan("AgentSupervisor.handleBreaches"))
