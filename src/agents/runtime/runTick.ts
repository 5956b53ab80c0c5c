/**
 * One tick of an agent: re-send runs a crashed process left `claimed`, build the tick context, plan
 * (steps, then rules whose conditions hold), fill templates, claim each action atomically in SQL and
 * perform it. A template that cannot be filled or a refused action is recorded as the agent's last
 * error and the tick goes on; a lost lease ends the tick at once (another process runs the agent now).
 */
import { Effect } from "effect"
import { Either } from "effect"
import type { StoredAgent } from "../agentRow.js"
import { ActionRunner } from "./actionRunner.js"
import { planTick } from "./planning.js"
import { AgentRunStore } from "./runStore.js"
import { fillTemplates } from "./templates.js"
import { buildTickContext, templateValues, tickMetrics } from "./tickContext.js"

export class LeaseLost {
  readonly _tag = "LeaseLost"
  constructor(readonly agentId: string) {}
}

export interface TickReport {
  readonly tick: number
  readonly planned: number
  readonly performed: number
  readonly errors: ReadonlyArray<string>
}

export const runTick = (input: { readonly stored: StoredAgent; readonly ownerId: string; readonly tick: number; readonly nowMs: number }) =>
  Effect.gen(function* () {
    const store = yield* AgentRunStore
    const runner = yield* ActionRunner
    const { stored, ownerId, tick, nowMs } = input
    const agent = stored.agent
    const errors: Array<string> = []
    const noteError = (message: string) =>
      Effect.zipRight(Effect.sync(() => errors.push(message)), store.recordError(agent.id, message))

    // A run claimed before a crash: the same intent and key again (the pipeline answers the original).
    for (const pending of yield* store.claimedActions(agent.id)) {
      const outcome = yield* runner.perform(stored, pending)
      yield* store.finishAction(pending.id, outcome)
      if (outcome.status === "failed") yield* noteError(`${pending.source} ${pending.sourceId} run ${pending.run}: ${outcome.error}`)
    }

    const context = yield* buildTickContext(agent, tick)
    const states = yield* store.load(agent.id, nowMs)
    const plan = planTick({
      autonomy: agent.autonomy,
      metrics: tickMetrics(context),
      steps: states.steps,
      rules: states.rules,
      actionsLastHour: states.actionsLastHour,
      nowMs
    })
    let performed = 0
    for (const action of plan) {
      const filled = fillTemplates(action.intent, templateValues(context))
      if (Either.isLeft(filled)) {
        yield* noteError(`${action.source} ${action.sourceId}: ${filled.left.message}`)
        continue
      }
      const claimed = yield* store.claimAction({
        agentId: agent.id, ownerId, action, filledIntent: filled.right, maxActionsPerHour: agent.autonomy.maxActionsPerHour, nowMs
      })
      if (claimed === "lease_lost") return yield* Effect.fail(new LeaseLost(agent.id))
      if (claimed === "hourly_cap") break
      if (claimed === "not_eligible") continue
      yield* Effect.logInfo(`agent ${agent.id} tick ${tick}: ${action.source} ${action.sourceId} run ${claimed.run} (${claimed.kind})`)
      const outcome = yield* runner.perform(stored, claimed)
      yield* store.finishAction(claimed.id, outcome)
      if (outcome.status === "failed") yield* noteError(`${action.source} ${action.sourceId} run ${claimed.run}: ${outcome.error}`)
      else performed += 1
    }
    return { tick, planned: plan.length, performed, errors } satisfies TickReport
  })
