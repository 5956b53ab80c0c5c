/**
 * What the pipeline asks of agent budgets (pipeline/agentPorts.ts, provided by agents/pipelinePorts.ts), over
 * the budgets' Test layer: no application, no database. The SQL book itself is tested by budgets.test.ts.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, TestClock } from "effect"
import { AgentBudgetOnRetryLive, AgentBudgetReleaseLive } from "../../src/agents/pipelinePorts.js"
import { AgentBudgets } from "../../src/agents/budgets.js"
import { AgentBudgetsTest } from "../../src/agents/budgetsTest.js"
import { AgentBudgetOnRetry, AgentBudgetRelease } from "../../src/pipeline/agentPorts.js"

const AGENT = "agent-1"
const ports = Layer.mergeAll(AgentBudgetOnRetryLive, AgentBudgetReleaseLive).pipe(
  Layer.provideMerge(AgentBudgetsTest({ [AGENT]: { tenantId: "default", budgetLamports: 1_000n } }))
)

/** A first attempt's reservation, bound to its transaction as execute binds it. */
const spend = (txId: string, lamports: bigint) =>
  Effect.gen(function* () {
    const budgets = yield* AgentBudgets
    const outcome = yield* budgets.reserve(AGENT, lamports)
    if (outcome._tag !== "Reserved") return yield* Effect.dieMessage(`expected a reservation, got ${outcome._tag}`)
    yield* budgets.bind(outcome.reservationId, txId)
    return outcome
  })

/** The chain said the transaction did not spend: what the settlement asks through the release port. */
const didNotLand = (txId: string) => Effect.flatMap(AgentBudgetRelease, (port) => port.release(txId, "transaction did not land"))
const reserve = (lamports: bigint) => Effect.flatMap(AgentBudgets, (budgets) => budgets.reserve(AGENT, lamports))

describe("the budget ports over the budgets' Test layer", () => {
  it.effect("a retry gives back what its transaction held and reserves again, all or nothing", () =>
    Effect.gen(function* () {
      const retry = yield* AgentBudgetOnRetry
      yield* spend("tx-1", 600n)
      expect(yield* retry.reserveAgain(AGENT, "tx-1", 900n)).toMatchObject({ _tag: "Reserved", spentLamportsToday: 900n, budgetLamports: 1_000n })
      expect(yield* retry.reserveAgain(AGENT, "tx-1", 1_200n)).toEqual({ _tag: "Exceeded", remainingLamports: 1_000n, requiredLamports: 1_200n, budgetLamports: 1_000n })
      expect(yield* retry.reserveAgain(AGENT, "tx-1", 0n)).toBeUndefined()
    }).pipe(Effect.provide(ports))
  )

  it.effect("the chain said it did not spend: the release port gives the reservation back once", () =>
    Effect.gen(function* () {
      yield* spend("tx-2", 700n)
      yield* spend("tx-3", 300n)
      yield* didNotLand("tx-2")
      yield* didNotLand("tx-2")
      expect(yield* reserve(701n)).toMatchObject({ _tag: "Exceeded", remainingLamports: 700n })
      expect(yield* reserve(700n)).toMatchObject({ _tag: "Reserved", spentLamportsToday: 1_000n })
    }).pipe(Effect.provide(ports))
  )

  it.effect("a release on a later UTC day gives nothing back to that day's counter", () =>
    Effect.gen(function* () {
      yield* spend("tx-4", 800n)
      yield* TestClock.adjust(Duration.days(1))
      yield* spend("tx-5", 900n)
      yield* didNotLand("tx-4")
      expect(yield* reserve(101n)).toMatchObject({ _tag: "Exceeded", remainingLamports: 100n })
    }).pipe(Effect.provide(ports))
  )
})
