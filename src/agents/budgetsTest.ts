/**
 * Agent budgets as a Test layer, for unit tests that start neither the application nor a database: the
 * same book as budgets.ts kept in memory. A daily cap per agent against the day's spend (the UTC day of
 * the Clock, so TestClock moves it), all-or-nothing reservations bound to their transaction, each released
 * once, the lamports given back only to the day that counted them. The live reconciler also releases the
 * reservations of transactions that failed early; here no transaction exists, so only unbound ones go.
 */
import { Clock, Effect, Layer } from "effect"
import { randomUUID } from "node:crypto"
import type { ReserveOutcome } from "../pipeline/agentPorts.js"
import { utcToday } from "./agentRepo.js"
import { AgentBudgets, budgetView, UNBOUND_RESERVATION_TIMEOUT_SECONDS } from "./budgets.js"

/** An agent of the book: its tenant and daily cap (null: no cap). */
export interface TestBudget {
  readonly tenantId: string
  readonly budgetLamports: bigint | null
}

interface Reservation {
  readonly agentId: string
  readonly day: string
  readonly lamports: bigint
  readonly createdAtMillis: number
  txId: string | null
  released: boolean
}

export const AgentBudgetsTest = (agents: Readonly<Record<string, TestBudget>>) =>
  Layer.sync(AgentBudgets, () => {
    const spent = new Map<string, { day: string; lamports: bigint }>()
    const reservations = new Map<string, Reservation>()

    const reserve = (agentId: string, lamports: bigint) =>
      Effect.gen(function* () {
        const agent = agents[agentId]
        if (agent === undefined) return yield* Effect.dieMessage(`agent ${agentId} vanished during a reservation`)
        const today = yield* utcToday
        const counter = spent.get(agentId)
        // A later day than ours keeps its counter: never restart backwards.
        const day = counter !== undefined && counter.day > today ? counter.day : today
        const already = counter?.day === day ? counter.lamports : 0n
        const budget = agent.budgetLamports
        if (budget !== null && already + lamports > budget) {
          return { _tag: "Exceeded", remainingLamports: budget > already ? budget - already : 0n, requiredLamports: lamports, budgetLamports: budget } satisfies ReserveOutcome
        }
        const reservationId = randomUUID()
        spent.set(agentId, { day, lamports: already + lamports })
        reservations.set(reservationId, { agentId, day, lamports, createdAtMillis: yield* Clock.currentTimeMillis, txId: null, released: false })
        return { _tag: "Reserved", reservationId, spentLamportsToday: already + lamports, budgetLamports: budget } satisfies ReserveOutcome
      })

    /** Releases the matching reservations not yet released; the counter goes down only if it still counts their day. */
    const releaseWhere = (matches: (reservation: Reservation, id: string) => boolean) =>
      Effect.sync(() => {
        let released = 0
        for (const [id, reservation] of reservations) {
          if (reservation.released || !matches(reservation, id)) continue
          reservation.released = true
          released += 1
          const counter = spent.get(reservation.agentId)
          if (counter?.day === reservation.day) {
            spent.set(reservation.agentId, { day: counter.day, lamports: counter.lamports > reservation.lamports ? counter.lamports - reservation.lamports : 0n })
          }
        }
        return released
      })

    const bind = (reservationId: string, txId: string) =>
      Effect.sync(() => {
        const reservation = reservations.get(reservationId)
        if (reservation !== undefined && reservation.txId === null) reservation.txId = txId
      })

    return AgentBudgets.make({
      view: budgetView,
      reserve,
      bind,
      release: (reservationId) => releaseWhere((_, id) => id === reservationId),
      releaseForTransaction: (txId) => releaseWhere((reservation) => reservation.txId === txId),
      reserveAgain: (agentId, txId, lamports) =>
        Effect.gen(function* () {
          yield* releaseWhere((reservation) => reservation.txId === txId)
          if (lamports === 0n) return undefined
          const outcome = yield* reserve(agentId, lamports)
          if (outcome._tag === "Reserved") {
            // A transaction holds one reservation: the released one is kept, detached.
            for (const reservation of reservations.values()) if (reservation.txId === txId && reservation.released) reservation.txId = null
            yield* bind(outcome.reservationId, txId)
          }
          return outcome
        }),
      releaseFailedReservations: Effect.flatMap(Clock.currentTimeMillis, (now) =>
        releaseWhere((reservation) => reservation.txId === null && now - reservation.createdAtMillis > UNBOUND_RESERVATION_TIMEOUT_SECONDS * 1000)
      ),
      resetForNewDay: Effect.map(utcToday, (today) => {
        let reset = 0
        for (const [agentId, counter] of spent) {
          if (counter.day >= today) continue
          spent.set(agentId, { day: today, lamports: 0n })
          reset += 1
        }
        return reset
      }),
      // Audit events are the live book's (audit/auditLog.ts); here each is only given an id.
      budgetEvent: () => Effect.sync(() => randomUUID())
    })
  })
