/**
 * Metric counters: increments accumulate in process memory and are added to SQL every 500 ms (and on
 * shutdown), so the hot path of the pipeline never waits on a contended counter row. Reads add the
 * deltas not yet flushed. A kill -9 can lose at most the last half second of counter increments; the
 * audit events themselves are written synchronously. Names are made storable (storableText.ts); a
 * counter the database still refuses is dropped alone (counted in `metric_counter_dropped_total`,
 * logged), never retried forever in front of the others.
 */
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Schedule, Schema } from "effect"
import { decodeRows } from "../db/rowDecoding.js"
import { isRowFault, sqlStateOf } from "../db/rowFault.js"
import { METRIC_COUNTER_DROPPED_TOTAL } from "./metricNames.js"
import { storableText } from "./storableText.js"

const DROPPED_METRIC = METRIC_COUNTER_DROPPED_TOTAL

/** A counter's value as exact decimal text. */
const CounterRow = Schema.Struct({ name: Schema.String, value: Schema.String })

export class MetricCounters extends Effect.Service<MetricCounters>()("MetricCounters", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let pending = new Map<string, bigint>()
    // Flush and snapshot exclude each other: a snapshot never sees a batch both in SQL and pending, or in neither.
    const lock = yield* Effect.makeSemaphore(1)

    const increment = (name: string, by: number | bigint = 1) =>
      Effect.sync(() => {
        const key = storableText(name)
        pending.set(key, (pending.get(key) ?? 0n) + BigInt(by))
      })

    const write = (batch: ReadonlyArray<readonly [string, bigint]>) => {
      const deltas = JSON.stringify(Object.fromEntries(batch.map(([name, value]) => [name, value.toString()])))
      return sql`
        INSERT INTO metric_counters (name, value)
        SELECT key, value::bigint FROM jsonb_each_text(${deltas}::jsonb)
        ON CONFLICT (name) DO UPDATE SET value = metric_counters.value + EXCLUDED.value, updated_at = now()
      `
    }

    /** Writes the deltas; answers those to try again (a failure not caused by the rows). */
    const writeIsolated = (
      batch: ReadonlyArray<readonly [string, bigint]>
    ): Effect.Effect<ReadonlyArray<readonly [string, bigint]>> =>
      write(batch).pipe(
        Effect.as([] as ReadonlyArray<readonly [string, bigint]>),
        Effect.catchAllCause((cause) => {
          if (!isRowFault(cause)) return Effect.logWarning("metric flush failed; will retry", Cause.pretty(cause)).pipe(Effect.as(batch))
          if (batch.length > 1) return Effect.forEach(batch, (entry) => writeIsolated([entry])).pipe(Effect.map((left) => left.flat()))
          return Effect.sync(() => pending.set(DROPPED_METRIC, (pending.get(DROPPED_METRIC) ?? 0n) + 1n)).pipe(
            Effect.zipRight(Effect.logError("metric counter dropped: the database refused it", { name: batch[0][0].slice(0, 128), sqlState: sqlStateOf(cause) })),
            Effect.as([] as ReadonlyArray<readonly [string, bigint]>)
          )
        })
      )

    const flush = lock.withPermits(1)(Effect.suspend(() => {
      if (pending.size === 0) return Effect.void
      const batch = pending
      pending = new Map()
      // What could not be written is added back, so nothing is lost.
      return writeIsolated([...batch]).pipe(
        Effect.flatMap((left) =>
          Effect.sync(() => {
            for (const [name, value] of left) pending.set(name, (pending.get(name) ?? 0n) + value)
          })
        )
      )
    }))

    yield* Effect.forkScoped(Effect.repeat(flush, Schedule.spaced("500 millis")))
    yield* Effect.addFinalizer(() => flush)

    /** Every counter: SQL values plus the deltas not yet flushed. */
    const snapshot = lock.withPermits(1)(Effect.gen(function* () {
      const rows = yield* sql`SELECT name, value::text AS value FROM metric_counters`.pipe(
        decodeRows("metric_counters", CounterRow),
        Effect.orDie
      )
      const totals = new Map<string, bigint>(rows.map((r) => [r.name, BigInt(r.value)]))
      for (const [name, value] of pending) totals.set(name, (totals.get(name) ?? 0n) + value)
      return totals
    }))

    return { increment, flush, snapshot }
  })
}) {}
