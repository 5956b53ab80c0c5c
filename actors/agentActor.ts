/**
 * One actor per running agent (started by the agent scheduler for the agents whose lease this process
 * holds). It ticks every `cadenceSeconds`, never more often than AGENT_LOOP_INTERVAL_MS, sleeping on
 * Effect's Clock (a TestClock drives it in tests). The next tick time is durable, so a restarted actor
 * keeps the cadence. It ends by itself when the agent is no longer running or the lease is lost; a
 * failing tick (ledger unreachable, say) fails the actor, and superviseActor restarts it with backoff.
 */
import { Clock, Deferred, Duration, Effect } from "effect"
import { AgentRepo } from "../src/agents/agentRepo.js"
import { tickIntervalMs } from "../src/agents/runtime/planning.js"
import { AgentRunStore } from "../src/agents/runtime/runStore.js"
import { runTick } from "../src/agents/runtime/runTick.js"
import { AppConfig } from "../src/config.js"
import type { ActorHandle } from "../src/supervision/actorRegistry.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

export const agentActorName = (agentId: string) => `agent:${agentId}`

const describe = (error: unknown) => (error instanceof Error ? error.message : typeof error === "object" && error !== null && "message" in error ? String(error.message) : String(error))

/**
 * The actor's body: ticks until the agent stops running or the lease is gone. `startDelayMs` spreads the
 * first ticks of many actors started at once (a process taking up thousands of agents) over an interval.
 */
export const agentActorBody = (agentId: string, ownerId: string, handle: ActorHandle, startDelayMs = 0) =>
  Effect.gen(function* () {
    const agents = yield* AgentRepo
    const store = yield* AgentRunStore
    const config = yield* AppConfig
    if (startDelayMs > 0) yield* Effect.sleep(Duration.millis(startDelayMs))
    // The next tick time is read once; after that this actor is the one that writes it (beginTick).
    let knownDue: number | null | undefined = undefined
    for (;;) {
      const stored = yield* agents.findSystem(agentId)
      if (stored === undefined || stored.agent.status !== "running" || !stored.agent.autonomy.enabled) return
      const interval = tickIntervalMs(stored.agent.autonomy.cadenceSeconds, config.agents.loopIntervalMs)
      const now = yield* Clock.currentTimeMillis
      const due: number | null = knownDue === undefined ? yield* store.nextTickAt(agentId) : knownDue
      knownDue = due
      if (due !== null && due > now) {
        yield* handle.setStatus("idle")
        // Never longer than one interval: the cadence may have been shortened meanwhile.
        yield* Effect.sleep(Duration.millis(Math.min(due - now, interval)))
        continue
      }
      // On the cadence's grid while the actor keeps up (a tick that starts late does not push the next one
      // later); from now on after a gap longer than an interval (a restart, a paused agent resumed).
      const next: number = due !== null && now - due < interval ? due + interval : now + interval
      const tick = yield* store.beginTick(agentId, ownerId, now, next)
      if (tick === undefined) return
      knownDue = next
      yield* handle.setStatus("running")
      const report = yield* runTick({ stored, ownerId, tick, nowMs: now }).pipe(
        Effect.tapError((error) => (error._tag === "LeaseLost" ? Effect.void : store.recordError(agentId, `tick ${tick}: ${describe(error)}`)))
      )
      yield* handle.setQueueDepth(0)
      if (report.errors.length > 0) yield* Effect.logWarning(`agent ${agentId} tick ${tick}`, report.errors)
    }
  }).pipe(Effect.catchTag("LeaseLost", () => Effect.void))

/**
 * The actor as one effect for the scheduler's FiberMap: registered and supervised (restarts with
 * backoff, visible in GET /api/v1/runtime/actors) until its body ends; interrupting it stops the actor.
 */
export const runAgentActor = (agentId: string, ownerId: string, startDelayMs = 0) =>
  Effect.scoped(
    Effect.gen(function* () {
      const done = yield* Deferred.make<void>()
      yield* superviseActor(
        agentActorName(agentId),
        (handle) => Effect.zipRight(agentActorBody(agentId, ownerId, handle, startDelayMs), Deferred.succeed(done, undefined)),
        { kind: "agent", initialBackoff: "1 second", maxBackoff: "1 minute" }
      )
      yield* Deferred.await(done)
    })
  )
