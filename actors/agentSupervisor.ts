/**
 * The agent supervisor: every AGENT_LOOP_INTERVAL_MS it turns failed delta guards of agent
 * transactions into breaches and pauses the autonomous agents that breached (budget or delta guard)
 * when their wallet's `autoPauseOnBreach` holds (src/agents/runtime/breachSweep.ts). It runs in every
 * process; marking a breach handled is conditional, and the pause transition too, so concurrent
 * supervisors act once. (Restarting crashed actors is superviseActor's job.)
 */
import { Effect, Layer, Schedule } from "effect"
import { handleBreaches } from "../src/agents/runtime/breachSweep.js"
import { AppConfig } from "../src/config.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

export const AgentSupervisorLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    yield* superviseActor(
      "agent-supervisor",
      (actor) =>
        Effect.repeat(
          Effect.gen(function* () {
            yield* actor.setStatus("running")
            const pass = yield* handleBreaches
            yield* actor.setQueueDepth(pass.handled)
            yield* actor.setStatus("idle")
          }),
          Schedule.spaced(`${config.agents.loopIntervalMs} millis`)
        ).pipe(Effect.asVoid),
      { kind: "agent-supervisor" }
    )
  })
)
