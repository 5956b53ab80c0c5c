/**
 * The state table's automatic pause, as one pass the supervisor runs: each unhandled breach pauses
 * its agent (a running autonomous one; others are left as they are) and is then marked handled. A
 * crash between the two repeats the pause, which is harmless (the transition is conditional).
 */
import { Effect } from "effect"
import { AgentBreaches } from "./agentBreaches.js"
import { AgentService } from "./agentService.js"

export const handlePendingBreaches = Effect.gen(function* () {
  const breaches = yield* AgentBreaches
  const agents = yield* AgentService
  const pending = yield* breaches.listUnhandled()
  let paused = 0
  for (const breach of pending) {
    const reason = `${breach.kind === "budget" ? "budget breach" : "delta guard breach"}: ${breach.reason}`
    const status = yield* agents.pauseForBreach(breach.agentId, reason)
    if (status === "paused") paused++
    yield* breaches.markHandled(breach.id)
  }
  return { handled: pending.length, paused }
}).pipe(Effect.withSpan("handlePendingBreaches"))
