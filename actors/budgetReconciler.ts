/**
 * The budget reconciler: every 30 s, in every process, it releases the budget reservations of agent
 * transactions that failed before submission (or were never created), and restarts the daily spend of
 * every agent whose counter belongs to an earlier UTC day. Both steps are safe to run concurrently
 * (a reservation is released once; the day sweep skips rows another process holds).
 */
import { Effect, Layer, Schedule } from "effect"
import { AgentBudgets } from "../src/agents/budgets.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

export const reconcileBudgets = Effect.gen(function* () {
  const budgets = yield* AgentBudgets
  const released = yield* budgets.releaseFailedReservations
  const reset = yield* budgets.resetForNewDay
  return { released, reset }
})

export const BudgetReconcilerLive = Layer.scopedDiscard(
  superviseActor(
    "budget-reconciler",
    (actor) =>
      Effect.repeat(
        Effect.gen(function* () {
          yield* actor.setStatus("running")
          const { released } = yield* reconcileBudgets
          yield* actor.setQueueDepth(released)
          yield* actor.setStatus("idle")
        }),
        Schedule.spaced("30 seconds")
      ).pipe(Effect.asVoid),
    { kind: "budget-reconciler" }
  )
)
