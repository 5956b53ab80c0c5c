/**
 * A pipeline step's telemetry without a service: lines logged inside a step carry the transaction's
 * traceId and txId (what LOG_FORMAT=json prints as annotations), the step's time lands in the
 * histogram under the status it started from, and without an OTLP endpoint no span is made for it.
 */
import { ConfigProvider, Effect, HashMap, Layer, Logger, Option } from "effect"
import { describe, expect, it } from "vitest"
import { AppConfig } from "../../src/config.js"
import { StageTelemetry } from "../../src/observability/stageTelemetry.js"
import { otelTraceId, tracesUrl } from "../../src/observability/tracing.js"
import { backoffAfter } from "../../src/webhooks/deliveryQueue.js"

const layerWith = (env: Record<string, string>) =>
  StageTelemetry.Default.pipe(
    Layer.provide(AppConfig.Default),
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(Object.entries({ API_GATEWAY_API_KEYS: "k:*:all", WALLET_KEY_ENCRYPTION_SECRET: "s", ...env })))))
  )

const TRACE_ID = "0b6f3a5e-8d51-4c2a-9f0e-3a1d2c4b5e6f"
const TX_ID = "7e0b1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d"

const captureStep = (env: Record<string, string>) => {
  const lines: Array<{ message: unknown; annotations: Record<string, unknown>; spans: Array<string> }> = []
  const capture = Logger.make(({ message, annotations, spans }) => {
    lines.push({ message, annotations: Object.fromEntries(HashMap.toEntries(annotations)), spans: [...spans].map((s) => s.label) })
  })
  return Effect.gen(function* () {
    const telemetry = yield* StageTelemetry
    const span = yield* telemetry.step(
      { txId: TX_ID, traceId: TRACE_ID, status: "signing", type: "transfer_sol" },
      Effect.zipRight(Effect.logWarning("signer slow"), Effect.currentSpan.pipe(Effect.option))
    )
    const metrics = yield* Effect.promise(() => telemetry.registry.getSingleMetricAsString("custody_pipeline_step_duration_seconds"))
    return { lines, span, metrics, tracing: telemetry.tracing }
  }).pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)), Effect.provide(layerWith(env)), Effect.runPromise)
}

describe("pipeline step telemetry", () => {
  it("annotates log lines with the traceId and txId and times the step, with no span when OTLP is off", async () => {
    const { lines, span, metrics, tracing } = await captureStep({})
    expect(tracing).toBe(false)
    expect(lines).toHaveLength(1)
    expect(lines[0].annotations).toMatchObject({ traceId: TRACE_ID, txId: TX_ID })
    expect(Option.isNone(span)).toBe(true)
    expect(metrics).toContain('custody_pipeline_step_duration_seconds_count{status="signing"} 1')
  })

  it("runs the step in a span of the envelope's trace when OTLP is configured", async () => {
    const { span, tracing } = await captureStep({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9" })
    expect(tracing).toBe(true)
    expect(Option.getOrThrow(span)).toMatchObject({ name: "pipeline.signing", traceId: "0b6f3a5e8d514c2a9f0e3a1d2c4b5e6f" })
  })

  it("maps a UUID to the trace id and an endpoint to its traces URL", () => {
    expect(otelTraceId(TRACE_ID)).toBe("0b6f3a5e8d514c2a9f0e3a1d2c4b5e6f")
    expect(tracesUrl("http://collector:4318/")).toBe("http://collector:4318/v1/traces")
  })
})

describe("webhook retry backoff", () => {
  it("doubles from the base after each failed attempt and stops at the cap", () => {
    expect([1, 2, 3, 4, 5].map((n) => backoffAfter(n, 1_000, 10_000))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000])
    expect(backoffAfter(10_000, 1_000, 3_600_000)).toBe(3_600_000)
  })
})
