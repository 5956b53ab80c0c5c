/**
 * Metric counters: increments accumulate in process memory and are added to SQL every 500 ms (and on
 * shutdown), so the hot path of the pipeline never waits on a contended counter row. Reads add the
 * deltas not yet flushed. A kill -9 can lose at most the last half second of counter increments; the
 * audit events themselves are written synchronously.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schedule } from "effect"

export class MetricCounters extends Effect.Service<MetricCounters>()("MetricCounters", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let pending = new Map<string, bigint>()
    // Flush and snapshot exclude each other: a snapshot never sees a batch both in SQL and pending, or in neither.
    const lock = yield* Effect.makeSemaphore(1)

    const increment = (name: string, by: number | bigint = 1) =>
      Effect.sync(() => {
        pending.set(name, (pending.get(name) ?? 0n) + BigInt(by))
      })

    const flush = lock.withPermits(1)(Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const batch = pending
      pending = new Map()
      const deltas = JSON.stringify(Object.fromEntries([...batch].map(([name, value]) => [name, value.toString()])))
      return sql`
        INSERT INTO metric_counters (name, value)
        SELECT key, value::bigint FROM jsonb_each_text(${deltas}::jsonb)
        ON CONFLICT (name) DO UPDATE SET value = metric_counters.value + EXCLUDED.value, updated_at = now()
      `.pipe(
        Effect.asVoid,
        // On failure, put the deltas back so nothing is lost.
        Effect.catchAll((error) =>
          Effect.sync(() => {
            for (const [name, value] of batch) pending.set(name, (pending.get(name) ?? 0n) + value)
          }).pipe(Effect.zipRight(Effect.logWarning("metric flush failed; will retry", String(error))))
        )
      )
    }))

    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced("500 millis")))
    yield* Effect.addFinalizer(() => flush)

    /** Every counter: SQL values plus the deltas not yet flushed. */
    const snapshot = lock.withPermits(1)(Effect.gen(function* () {
      const rows = yield* sql<{ name: string; value: string }>`SELECT name, value::text AS value FROM metric_counters`.pipe(Effect.orDie)
      const totals = new Map<string, bigint>(rows.map((r) => [r.name, BigInt(r.value)]))
      for (const [name, value] of pending) totals.set(name, (totals.get(name) ?? 0n) + value)
      return totals
    }))

    return { increment, flush, snapshot }
  })
}) {}
