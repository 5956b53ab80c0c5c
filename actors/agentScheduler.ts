/**
 * The agent scheduler: every AGENT_LOOP_INTERVAL_MS it reads the running agents with autonomy
 * enabled, claims or renews their SQL leases, and keeps a FiberMap of agent actors in step: an actor
 * for every agent whose lease this process holds, none for the others (stopped, paused, or held by
 * another process). Leases are released when the scheduler stops, so another process takes over at
 * once; a process that dies loses its leases when they expire.
 */
import { Config, Effect, FiberMap, Layer, Schedule } from "effect"
import { randomUUID } from "node:crypto"
import { AgentRepo } from "../src/agents/agentRepo.js"
import { AgentLeases } from "../src/agents/runtime/agentLeases.js"
import { AppConfig } from "../src/config.js"
import { runAgentActor } from "./agentActor.js"
import type { ActorHandle } from "../src/supervision/actorRegistry.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

/** Long enough to survive a slow loop or two, short enough that a dead process's agents move on. */
export const leaseTtlMs = (loopIntervalMs: number) => Math.max(5 * loopIntervalMs, 15_000)

/** One pass: leases claimed and renewed, actors started and stopped to match. */
const reconcile = (ownerId: string, actors: FiberMap.FiberMap<string>, handle: ActorHandle) =>
  Effect.gen(function* () {
    const agents = yield* AgentRepo
    const leases = yield* AgentLeases
    const config = yield* AppConfig
    const running = yield* agents.runningAutonomousIds
    const held = yield* leases.claim(running, ownerId, leaseTtlMs(config.agents.loopIntervalMs))
    const actorIds = new Set<string>()
    for (const [agentId] of [...actors]) {
      if (!held.has(agentId)) yield* FiberMap.remove(actors, agentId)
      else actorIds.add(agentId)
    }
    // Actors started in one pass (a process taking up many agents at once) spread their first ticks over
    // one loop interval instead of all ticking in the same instant; a lone new agent starts at once.
    const starting = [...held].filter((agentId) => !actorIds.has(agentId))
    for (const [index, agentId] of starting.entries()) {
      const delayMs = Math.floor((index * config.agents.loopIntervalMs) / starting.length)
      yield* FiberMap.run(actors, agentId, runAgentActor(agentId, ownerId, delayMs), { onlyIfMissing: true })
    }
    // Leases of agents that stopped running: give them up (the actor noticed, or was just removed).
    yield* leases.releaseExcept(ownerId, [...held])
    yield* handle.setQueueDepth(yield* FiberMap.size(actors))
  })

/** The scheduler's body; `ownerId` names this process's leases. */
export const agentSchedulerBody = (ownerId: string) => (handle: ActorHandle) =>
  Effect.gen(function* () {
    const leases = yield* AgentLeases
    const config = yield* AppConfig
    // Registered before the map: finalizers run in reverse, so the actors stop before the leases go.
    yield* Effect.addFinalizer(() => leases.release(ownerId))
    const actors = yield* FiberMap.make<string>()
    yield* Effect.repeat(
      Effect.zipRight(handle.setStatus("running"), reconcile(ownerId, actors, handle)).pipe(Effect.zipLeft(handle.setStatus("idle"))),
      Schedule.spaced(`${config.agents.loopIntervalMs} millis`)
    )
  }).pipe(Effect.scoped)

/** `AGENT_SCHEDULER_ENABLED=false` runs no agents in this process (an API-only process; tests drive their own). */
const schedulerEnabled = Config.boolean("AGENT_SCHEDULER_ENABLED").pipe(Config.withDefault(true))

/** Starts a scheduler in the current scope with a fresh owner id (two services in one process are two owners). */
export const startAgentScheduler = (name = "agent-scheduler") =>
  Effect.suspend(() => superviseActor(name, agentSchedulerBody(randomUUID()), { kind: "agent-scheduler" }))

/** The scheduler as a scoped layer (in ActorsLive). */
export const AgentSchedulerLive = Layer.scopedDiscard(
  Effect.flatMap(schedulerEnabled, (enabled) => (enabled ? Effect.asVoid(startAgentScheduler()) : Effect.void))
)
