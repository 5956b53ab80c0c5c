/**
 * What the pipeline reports about each of its steps besides the SQL record: a latency histogram per
 * step (Prometheus, per process), the created-to-confirmed latency, and, only when an OTLP endpoint
 * is configured, one span per step in the trace of the request that created the transaction (its
 * envelope's traceId; tracing.ts). Without OTEL_EXPORTER_OTLP_ENDPOINT no span is made here, so the
 * pipeline's hot path pays for two clock reads, a histogram bucket and a log annotation per step.
 */
import { Effect, Option } from "effect"
import { Histogram, Registry } from "prom-client"
import { AppConfig } from "../config.js"
import { runParentSpan } from "./tracing.js"

/** Seconds: a local ledger answers a step in milliseconds, a public cluster's confirmation takes seconds. */
const STEP_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30]
const CONFIRMATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]

export interface StepRun {
  readonly txId: string
  readonly traceId: string | null
  /** The status the step starts from (pending, simulating, policy_eval, signing, submitting). */
  readonly status: string
  readonly type: string
}

export class StageTelemetry extends Effect.Service<StageTelemetry>()("StageTelemetry", {
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const tracing = Option.isSome(config.observability.otlpEndpoint)
    // One registry per service instance (tests run several services in one process).
    const registry = new Registry()
    const stepSeconds = new Histogram({
      name: "custody_pipeline_step_duration_seconds",
      help: "Time a pipeline worker spent on one step of a transaction, by the status the step started from",
      labelNames: ["status"],
      buckets: STEP_BUCKETS,
      registers: [registry]
    })
    const confirmationSeconds = new Histogram({
      name: "custody_tx_confirmation_latency_seconds",
      help: "Time from a transaction's creation to its confirmation",
      buckets: CONFIRMATION_BUCKETS,
      registers: [registry]
    })

    /** Runs one step, timing it (and, with tracing, inside a span of the transaction's trace). */
    const step = <A, E, R>(run: StepRun, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
      const timed = Effect.suspend(() => {
        const started = performance.now()
        return Effect.ensuring(effect, Effect.sync(() => stepSeconds.observe({ status: run.status }, (performance.now() - started) / 1000)))
      })
      if (run.traceId === null) return timed
      const annotated = Effect.annotateLogs(timed, { traceId: run.traceId, txId: run.txId })
      if (!tracing) return annotated
      return Effect.withSpan(annotated, `pipeline.${run.status}`, {
        parent: runParentSpan(run.traceId),
        attributes: { "custody.tx_id": run.txId, "custody.tx_type": run.type, "custody.status": run.status },
        captureStackTrace: false
      })
    }

    const confirmed = (createdAt: Date, confirmedAt: Date) =>
      Effect.sync(() => {
        const seconds = (confirmedAt.getTime() - createdAt.getTime()) / 1000
        if (Number.isFinite(seconds) && seconds >= 0) confirmationSeconds.observe(seconds)
      })

    return { step, confirmed, registry, tracing }
  })
}) {}
