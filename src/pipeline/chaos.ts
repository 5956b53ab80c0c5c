/**
 * Chaos: injected latency and failures at four pipeline stages, for resilience tests (spec: Chaos
 * config). `PUT` changes the fields given; a `failureRates` map given replaces the whole map (a stage
 * it leaves out is 0). One config for the whole deployment, stored in SQL (chaos_config). Off unless the process
 * runs with CHAOS_ENABLED=true: without it the config cannot be changed (403) and `inject` never
 * fires, whatever the stored row says. The pipeline's hot path reads a copy cached for at most 1 s,
 * so several instances on one database follow a change within a second.
 */
import { SqlClient } from "@effect/sql"
import { Data, Duration, Effect, Random, Schema } from "effect"
import { type ChaosConfig, type ChaosUpdateBody, DEFAULT_CHAOS, type FailureRates } from "../../schemas/chain.js"
import { Forbidden } from "../../schemas/errors.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { chaosInjectedMetric } from "../audit/metricNames.js"
import { AppConfig } from "../config.js"
import { decodeRows, JsonObject } from "../db/rowDecoding.js"

export type ChaosStage = keyof FailureRates

/** A failure injected by chaos at `stage`; the pipeline treats it like a real failure of that stage. */
export class ChaosFault extends Data.TaggedError("ChaosFault")<{
  readonly stage: ChaosStage
  readonly message: string
}> {}

const CACHE_TTL_MS = 1_000

const ChaosRow = Schema.Struct({
  enabled: Schema.Boolean,
  failure_rates: Schema.Union(Schema.String, JsonObject),
  latency_ms: Schema.Number
})
type ChaosRow = typeof ChaosRow.Type

const rate = (value: unknown) => (typeof value === "number" && value >= 0 && value <= 1 ? value : 0)

/** jsonb arrives as an object from node-postgres and may arrive as text elsewhere. */
const fromRow = (row: ChaosRow): ChaosConfig => {
  const rates: Partial<FailureRates> = typeof row.failure_rates === "string" ? JSON.parse(row.failure_rates) : row.failure_rates
  return {
    enabled: row.enabled,
    failureRates: { simulation: rate(rates.simulation), build: rate(rates.build), sign: rate(rates.sign), send: rate(rates.send) },
    latencyMs: Number(row.latency_ms)
  }
}

export class Chaos extends Effect.Service<Chaos>()("Chaos", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const counters = yield* MetricCounters
    const allowed = config.chaosEnabled
    let cached: { readonly value: ChaosConfig; readonly at: number } | null = null

    const readStored = Effect.gen(function* () {
      const rows = yield* sql`SELECT enabled, failure_rates, latency_ms FROM chaos_config WHERE id`.pipe(decodeRows("chaos_config", ChaosRow))
      return rows[0] === undefined ? DEFAULT_CHAOS : fromRow(rows[0])
    }).pipe(Effect.orDie)

    /** The effective config: `enabled` is false whenever this process does not allow chaos. */
    const get = Effect.gen(function* () {
      const stored = yield* readStored
      const value = allowed ? stored : { ...stored, enabled: false }
      cached = { value, at: Date.now() }
      return value
    }).pipe(Effect.withSpan("Chaos.get"))

    const update = (body: ChaosUpdateBody) =>
      Effect.gen(function* () {
        if (!allowed) {
          return yield* Effect.fail(new Forbidden({ message: "chaos is disabled in this deployment (start the service with CHAOS_ENABLED=true to change it)" }))
        }
        // Read and write in one transaction with the row locked, so two partial updates both apply.
        const next = yield* sql.withTransaction(
          Effect.gen(function* () {
            const rows = yield* sql`SELECT enabled, failure_rates, latency_ms FROM chaos_config WHERE id FOR UPDATE`.pipe(decodeRows("chaos_config", ChaosRow))
            const current = rows[0] === undefined ? DEFAULT_CHAOS : fromRow(rows[0])
            const merged: ChaosConfig = {
              enabled: body.enabled ?? current.enabled,
              // A failureRates map is the whole map: a stage it leaves out is 0, so `{}` clears them all.
              failureRates: body.failureRates === undefined ? current.failureRates : { ...DEFAULT_CHAOS.failureRates, ...body.failureRates },
              latencyMs: body.latencyMs ?? current.latencyMs
            }
            yield* sql`
              INSERT INTO chaos_config (id, enabled, failure_rates, latency_ms, updated_at)
              VALUES (true, ${merged.enabled}, ${JSON.stringify(merged.failureRates)}::jsonb, ${merged.latencyMs}, now())
              ON CONFLICT (id) DO UPDATE SET enabled = EXCLUDED.enabled, failure_rates = EXCLUDED.failure_rates,
                latency_ms = EXCLUDED.latency_ms, updated_at = now()
            `
            return merged
          })
        ).pipe(Effect.orDie)
        cached = { value: next, at: Date.now() }
        return next
      }).pipe(Effect.withSpan("Chaos.update"))

    const current = Effect.suspend(() =>
      cached !== null && Date.now() - cached.at < CACHE_TTL_MS ? Effect.succeed(cached.value) : get
    )

    /**
     * Called by the pipeline before a stage: waits `latencyMs`, then fails with the stage's rate.
     * A rate of 0 never fails and 1 always does (Random.next is in [0, 1)).
     */
    const inject = (stage: ChaosStage): Effect.Effect<void, ChaosFault> =>
      Effect.gen(function* () {
        if (!allowed) return
        const chaos = yield* current
        if (!chaos.enabled) return
        if (chaos.latencyMs > 0) yield* Effect.sleep(Duration.millis(chaos.latencyMs))
        const roll = yield* Random.next
        if (roll < chaos.failureRates[stage]) {
          yield* counters.increment(chaosInjectedMetric(stage))
          return yield* Effect.fail(new ChaosFault({ stage, message: `chaos: injected failure at the ${stage} stage (chaos testing is enabled; not a real ${stage} failure)` }))
        }
      })

    return { get, update, inject, allowed }
  })
}) {}
