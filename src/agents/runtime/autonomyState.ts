/**
 * The record of GET /agents/<id>/autonomy/state ([n5], schemas/agent.ts AutonomyState): the agent's
 * status and autonomy switches, whether an actor runs it now (a live lease, on any process), the tick
 * counter with the last and next tick, actions in the last hour (paper ones included), each configured
 * step's runs / last run / next eligible time (null once maxRuns is reached) and each rule's runs and
 * last firing, and the last error an action or tick met. Times are the actors' Clock.
 */
import { Clock, Effect } from "effect"
import type { AutonomyState } from "../../../schemas/agent.js"
import type { StoredAgent } from "../agentRow.js"
import { AgentLeases } from "./agentLeases.js"
import { NEVER_RUN, nextEligibleAt } from "./planning.js"
import { AgentRunStore } from "./runStore.js"

const isoOrNull = (millis: number | null) => (millis === null ? null : new Date(millis).toISOString())

export const autonomyState = (stored: StoredAgent) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore
    const leases = yield* AgentLeases
    const now = yield* Clock.currentTimeMillis
    const { agent } = stored
    const states = yield* store.load(agent.id, now)
    const leased = yield* leases.isHeld(agent.id)
    const state: AutonomyState = {
      agentId: agent.id,
      status: agent.status,
      enabled: agent.autonomy.enabled,
      mode: agent.autonomy.mode,
      running: agent.status === "running" && agent.autonomy.enabled && leased,
      tick: states.tick,
      lastTickAt: isoOrNull(states.lastTickAt),
      nextTickAt: agent.status === "running" && agent.autonomy.enabled ? isoOrNull(states.nextTickAt) : null,
      actionsLastHour: states.actionsLastHour,
      steps: agent.autonomy.steps.map((step) => {
        const run = states.steps.get(step.id) ?? NEVER_RUN
        return { id: step.id, runs: run.runs, lastRunAt: isoOrNull(run.lastRunAt), nextEligibleAt: isoOrNull(nextEligibleAt(step, run, now)) }
      }),
      rules: agent.autonomy.rules.map((rule) => {
        const run = states.rules.get(rule.id) ?? NEVER_RUN
        return { id: rule.id, runs: run.runs, lastFiredAt: isoOrNull(run.lastRunAt) }
      }),
      lastError: states.lastError
    }
    return state
  })
