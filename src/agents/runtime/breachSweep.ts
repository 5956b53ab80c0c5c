/**
 * The supervisor's pass over breaches. First every confirmed agent transaction whose delta guard
 * failed becomes an `agent_breaches` row (once per transaction: a unique index). Then each unhandled
 * breach pauses its agent through the agents core's automatic pause (running autonomous agents only,
 * `agent.paused` with the reason) when the wallet's portfolio controls say `autoPauseOnBreach`
 * (default true; unreadable controls count as true: fail closed), and is marked handled. A crash
 * between pause and mark repeats the pause, which the conditional transition makes harmless.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { RiskConfigRepo } from "../../risk/riskConfigRepo.js"
import { AgentBreaches, pauseReasonOf } from "../agentBreaches.js"
import { AgentRepo } from "../agentRepo.js"
import { AgentService } from "../agentService.js"

/** [n9] The transaction itself stays `confirmed` (it landed; the breach is in its deltaGuard); the agent pauses. */
export const recordDeltaGuardBreaches = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql<{ id: string }>`
    INSERT INTO agent_breaches (id, tenant_id, agent_id, kind, reason, tx_id)
    SELECT gen_random_uuid(), t.tenant_id, t.agent_id, 'delta_guard',
      'transaction ' || t.id || ': ' || COALESCE(t.delta_guard->>'reason', 'balance change outside the delta guard'), t.id
    FROM transactions t JOIN agents a ON a.id = t.agent_id
    WHERE t.agent_id IS NOT NULL AND (t.delta_guard->>'ok') = 'false' AND t.status = 'confirmed'
      AND NOT EXISTS (SELECT 1 FROM agent_breaches b WHERE b.tx_id = t.id AND b.kind = 'delta_guard')
    ON CONFLICT DO NOTHING
    RETURNING id
  `.pipe(Effect.orDie)
  return rows.length
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
