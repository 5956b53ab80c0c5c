/**
 * Agent budgets: a daily lamport cap (`budgetLamports`) against `spentLamportsToday`, which counts for
 * one UTC day and restarts at 0 on the next (lazily on the first spend of the day, and by the budget
 * reconciler's sweep). Every spend is a reservation row made under the agent's row lock, so concurrent
 * executes never overspend; it is bound to its transaction and released exactly once when that
 * transaction fails before it could have been submitted (or never came to exist).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { AuditLog } from "../audit/auditLog.js"
import { budgetExceededMessage, type ReserveOutcome } from "../pipeline/agentPorts.js"
import { TransactionSummaries } from "../pipeline/transactionSummaries.js"
import { utcToday } from "./agentRepo.js"
import { spentToday, type StoredAgent } from "./agentRow.js"
import { decodeRows } from "../db/rowDecoding.js"

// The outcome and its message are what the pipeline's retry asks of the budget (pipeline/agentPorts.ts).
export { budgetExceededMessage, type ReserveOutcome }

/** failedAt values of a transaction that never reached the chain, so its reservation can be released. */
export const RELEASABLE_FAILED_AT = ["validation", "policy", "build", "sign"] as const

/** A reservation not bound to a transaction after this long belongs to a create that never finished. */
export const UNBOUND_RESERVATION_TIMEOUT_SECONDS = 300

const LockedBudget = Schema.Struct({
  tenant_id: Schema.String,
  wallet_id: Schema.String,
  spent_day: Schema.String,
  spent: Schema.String,
  budget: Schema.NullOr(Schema.String)
})
type LockedBudget = typeof LockedBudget.Type

const Released = Schema.Struct({
  agent_id: Schema.String,
  tenant_id: Schema.String,
  tx_id: Schema.NullOr(Schema.String),
  lamports: Schema.String,
  counted: Schema.Boolean
})
type Released = typeof Released.Type

const HeldReservation = Schema.Struct({ id: Schema.String, tx_id: Schema.String })

/** An agent whose daily counter restarted, with the day and spend it had. */
const ResetCounter = Schema.Struct({ id: Schema.String, tenant_id: Schema.String, previous_day: Schema.String, previous_spent: Schema.String })

/** The day's spend, for the budget endpoint: a counter of an earlier day reads as 0. */
export const budgetView = (stored: StoredAgent) =>
  Effect.map(utcToday, (today) => {
    const spent = spentToday(stored, today)
    const budget = stored.agent.budgetLamports
    return {
      agentId: stored.agent.id,
      walletId: stored.agent.walletId,
      ...(budget === undefined ? {} : { budgetLamports: budget, remainingLamports: budget > spent ? budget - spent : 0n }),
      spentLamportsToday: spent,
      updatedAt: stored.budgetUpdatedAt
    }
  })

export class AgentBudgets extends Effect.Service<AgentBudgets>()("AgentBudgets", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog
    const transactions = yield* TransactionSummaries

    const budgetEvent = (tenantId: string, agentId: string, eventType: string, message: string, metadata: Record<string, unknown>, txId?: string | null) =>
      audit.record({ tenantId, eventType, message, metadata, agentId, txId: txId ?? null, entityType: "agent", category: "budget" })

    /**
     * Reserves `lamports` of today's budget: all or nothing, under the agent's row lock. A counter of an
     * earlier day restarts at 0 first (agent.budget.reset). Its events commit with it.
     */
    const reserve = (agentId: string, lamports: bigint, traceId?: string) =>
      Effect.gen(function* () {
        const today = yield* utcToday
        const { outcome } = yield* sql.withTransaction(
          Effect.tap(Effect.gen(function* () {
            const [row] = yield* sql`
              SELECT tenant_id, wallet_id, spent_day, spent_lamports_today::text AS spent, budget_lamports::text AS budget
              FROM agents WHERE id = ${agentId} FOR UPDATE
            `.pipe(decodeRows("agents", LockedBudget))
            if (row === undefined) return yield* Effect.dieMessage(`agent ${agentId} vanished during a reservation`)
            // A later day than ours (another instance's clock) keeps its counter: never restart backwards.
            const day = row.spent_day > today ? row.spent_day : today
            const spent = row.spent_day === day ? BigInt(row.spent) : 0n
            const budget = row.budget === null ? null : BigInt(row.budget)
            if (budget !== null && spent + lamports > budget) {
              const outcome: ReserveOutcome = { _tag: "Exceeded", remainingLamports: budget > spent ? budget - spent : 0n, requiredLamports: lamports, budgetLamports: budget }
              return { outcome, locked: row }
            }
            const reservationId = randomUUID()
            yield* sql`
              UPDATE agents SET spent_lamports_today = ${(spent + lamports).toString()}::numeric,
                spent_day = ${day}, budget_updated_at = now()
              WHERE id = ${agentId}
            `
            yield* sql`
              INSERT INTO agent_budget_reservations (id, agent_id, tenant_id, utc_day, lamports)
              VALUES (${reservationId}, ${agentId}, ${row.tenant_id}, ${day}, ${lamports.toString()}::numeric)
            `
            const outcome: ReserveOutcome = { _tag: "Reserved", reservationId, spentLamportsToday: spent + lamports, budgetLamports: budget }
            return { outcome, locked: row }
          }), ({ outcome, locked }) => Effect.gen(function* () {
            if (locked.spent_day < today && BigInt(locked.spent) > 0n) {
              yield* budgetEvent(locked.tenant_id, agentId, "agent.budget.reset", `agent ${agentId} daily spend restarted for ${today}`, {
                previousDay: locked.spent_day, previousSpentLamports: locked.spent, day: today
              })
            }
            if (outcome._tag === "Reserved") {
              yield* budgetEvent(locked.tenant_id, agentId, "agent.budget.updated", `agent ${agentId} reserved ${lamports} lamports`, {
                change: "reserved", lamports, spentLamportsToday: outcome.spentLamportsToday, budgetLamports: outcome.budgetLamports, traceId
              })
            }
          }))
        ).pipe(Effect.orDie)
        return outcome
      }).pipe(Effect.withSpan("AgentBudgets.reserve"))

    /** Binds a reservation to the transaction it paid for (so the reconciler can judge it). */
    const bind = (reservationId: string, txId: string) =>
      sql`UPDATE agent_budget_reservations SET tx_id = ${txId} WHERE id = ${reservationId} AND tx_id IS NULL`.pipe(Effect.asVoid, Effect.orDie)

    /**
     * Releases reservations (matched by `where`) exactly once: `released_at` is set by the first caller
     * only, and the lamports come off the counter only if it still counts the reservation's day. Its
     * events commit with it.
     */
    const releaseWhere = (where: ReturnType<typeof sql.and>, reason: string) =>
      Effect.gen(function* () {
        const released = yield* sql.withTransaction(Effect.tap(
          sql`
            WITH released AS (
              UPDATE agent_budget_reservations SET released_at = now()
              WHERE released_at IS NULL AND ${where}
              RETURNING agent_id, tenant_id, tx_id, utc_day, lamports
            ), per_agent AS (
              SELECT agent_id, utc_day, sum(lamports) AS lamports FROM released GROUP BY agent_id, utc_day
            ), lowered AS (
              UPDATE agents a SET spent_lamports_today = GREATEST(a.spent_lamports_today - p.lamports, 0), budget_updated_at = now()
              FROM per_agent p WHERE a.id = p.agent_id AND a.spent_day = p.utc_day
              RETURNING a.id, a.spent_day
            )
            SELECT r.agent_id, r.tenant_id, r.tx_id, r.lamports::text AS lamports,
              EXISTS (SELECT 1 FROM lowered l WHERE l.id = r.agent_id AND l.spent_day = r.utc_day) AS counted
            FROM released r
          `.pipe(decodeRows("agent_budget_reservations", Released)),
          (rows) => Effect.forEach(rows, (row) =>
            budgetEvent(row.tenant_id, row.agent_id, "agent.budget.updated", `agent ${row.agent_id} released ${row.lamports} lamports`, {
              change: "released", lamports: row.lamports, reason, restoredToday: row.counted
            }, row.tx_id), { discard: true })
        )).pipe(Effect.orDie)
        return released.length
      })

    const release = (reservationId: string, reason: string) => releaseWhere(sql.and([sql`id = ${reservationId}`]), reason)

    /** What a transaction still holds is released (the chain said it did not spend; idempotent). */
    const releaseForTransaction = (txId: string, reason: string) => releaseWhere(sql.and([sql`tx_id = ${txId}`]), reason)

    /**
     * A retried transaction spends again ([n7]): what it still holds is released, then its lamports are
     * reserved anew (all or nothing, as on execute) and bound to it. Meant for the retry's SQL
     * transaction, so a refusal (Exceeded) leaves everything as it was when the caller rolls back.
     */
    const reserveAgain = (agentId: string, txId: string, lamports: bigint, traceId?: string) =>
      Effect.gen(function* () {
        yield* releaseWhere(sql.and([sql`tx_id = ${txId}`]), "transaction retried")
        if (lamports === 0n) return undefined
        const outcome = yield* reserve(agentId, lamports, traceId)
        if (outcome._tag === "Reserved") {
          // A transaction holds one reservation (tx_id is unique): the released one is kept, detached.
          yield* sql`UPDATE agent_budget_reservations SET tx_id = NULL WHERE tx_id = ${txId} AND released_at IS NOT NULL`.pipe(Effect.orDie)
          yield* bind(outcome.reservationId, txId)
        }
        return outcome
      })

    /**
     * The reconciler's pass: releases reservations of transactions that failed before submission, and
     * reservations never bound to a transaction (the create did not finish). Safe to run anywhere, often.
     */
    const releaseFailedReservations = Effect.gen(function* () {
      // The reservations still held, then which of their transactions the pipeline says failed early.
      // Released by reservation id: one a retry made meanwhile for the same transaction is not among them.
      // Only the last 48 hours: an older reservation belongs to an earlier UTC day, whose counter no longer
      // counts it (releasing it restores nothing), and a confirmed spend's reservation is held for ever, so
      // without the bound each pass would ship every agent spend ever made.
      const held = yield* sql`
        SELECT id, tx_id FROM agent_budget_reservations
        WHERE released_at IS NULL AND tx_id IS NOT NULL AND created_at > now() - interval '48 hours'
      `.pipe(decodeRows("agent_budget_reservations", HeldReservation), Effect.orDie)
      const failedTxIds = new Set(yield* transactions.failedAtAnyOf(held.map((row) => row.tx_id), RELEASABLE_FAILED_AT))
      const releasable = held.filter((row) => failedTxIds.has(row.tx_id)).map((row) => row.id)
      const failed = releasable.length === 0 ? 0 : yield* releaseWhere(
        sql.and([sql`id IN (SELECT value::uuid FROM jsonb_array_elements_text(${JSON.stringify(releasable)}::jsonb))`]),
        "transaction failed before submission"
      )
      const unbound = yield* releaseWhere(
        sql.and([sql`tx_id IS NULL`, sql`created_at < now() - make_interval(secs => ${UNBOUND_RESERVATION_TIMEOUT_SECONDS})`]),
        "transaction was never created"
      )
      return failed + unbound
    }).pipe(Effect.withSpan("AgentBudgets.releaseFailedReservations"))

    /** Midnight UTC: every counter of an earlier day restarts at 0 (agent.budget.reset for those that spent). */
    const resetForNewDay = Effect.gen(function* () {
      const today = yield* utcToday
      const reset = yield* sql`
        WITH stale AS (
          SELECT id, spent_day, spent_lamports_today FROM agents WHERE spent_day < ${today} FOR UPDATE SKIP LOCKED
        )
        UPDATE agents a SET spent_lamports_today = 0, spent_day = ${today}, budget_updated_at = now()
        FROM stale s WHERE a.id = s.id
        RETURNING a.id, a.tenant_id, s.spent_day AS previous_day, s.spent_lamports_today::text AS previous_spent
      `.pipe(decodeRows("agents", ResetCounter), Effect.orDie)
      for (const row of reset.filter((r) => BigInt(r.previous_spent) > 0n)) {
        yield* budgetEvent(row.tenant_id, row.id, "agent.budget.reset", `agent ${row.id} daily spend restarted for ${today}`, {
          previousDay: row.previous_day, previousSpentLamports: row.previous_spent, day: today
        })
      }
      return reset.length
    }).pipe(Effect.withSpan("AgentBudgets.resetForNewDay"))

    return { view: budgetView, reserve, bind, release, releaseForTransaction, reserveAgain, releaseFailedReservations, resetForNewDay, budgetEvent }
  }),
  dependencies: [TransactionSummaries.Default]
}) {}
