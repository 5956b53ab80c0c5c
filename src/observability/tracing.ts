/**
 * OpenTelemetry traces over OTLP/HTTP (JSON), on only when OTEL_EXPORTER_OTLP_ENDPOINT is set, as the
 * OpenTelemetry SDKs read it: spans go to `<endpoint>/v1/traces`. The exporter is the Effect 3 line's
 * own (`@effect/opentelemetry` OtlpTracer over the platform's HTTP client), batched off the hot path.
 *
 * A pipeline run's spans belong to the trace of the request that created the transaction: the
 * envelope's traceId (a UUID) without its dashes is the 32-hex-digit OpenTelemetry trace id. The
 * gateway makes no span per request (CPU), so the runs' spans name a parent span id derived from the
 * trace id, the same for every run of that transaction.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Effect, Layer, Option, Tracer } from "effect"
import { AppConfig } from "../config.js"

/** The OpenTelemetry trace id of an envelope traceId (UUID): its 32 hex digits. */
export const otelTraceId = (traceId: string) => traceId.replace(/-/g, "").toLowerCase()

/** The parent of a run's spans in the trace `traceId` (the request that created the transaction). */
export const runParentSpan = (traceId: string): Tracer.AnySpan =>
  Tracer.externalSpan({ traceId: otelTraceId(traceId), spanId: otelTraceId(traceId).slice(16), sampled: true })

/** The traces URL for an OTLP endpoint given as the SDKs take it (base URL; `/v1/traces` is added). */
export const tracesUrl = (endpoint: string) => `${endpoint.replace(/\/+$/, "")}/v1/traces`

/**
 * A span for a per-request path, made only when traces are exported (an OTLP endpoint is configured):
 * Effect builds a span even when nothing exports it, about 11 us each (measured), and no stack trace is
 * captured for it (an Error per call). `exporting` is read once from AppConfig by the service using it.
 */
export const hotSpan = (exporting: boolean, name: string) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  exporting ? Effect.withSpan(self, name, { captureStackTrace: false }) : self

/**
 * The OTLP tracer when an endpoint is configured; nothing otherwise (Effect's own tracer, no export). The
 * exporter's modules are loaded only then: at start they were one of the costliest imports of a service
 * that exports nothing (issue 35, docs/decisions/production.md "Cold start").
 */
export const TracingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    if (Option.isNone(config.observability.otlpEndpoint)) return Layer.empty
    const endpoint = config.observability.otlpEndpoint.value
    const [OtlpTracer, OtlpSerialization] = yield* Effect.promise(() =>
      Promise.all([import("@effect/opentelemetry/OtlpTracer"), import("@effect/opentelemetry/OtlpSerialization")])
    )
    return OtlpTracer.layer({
      url: tracesUrl(endpoint),
      resource: { serviceName: config.observability.serviceName },
      exportInterval: "1 second"
    }).pipe(Layer.provide(OtlpSerialization.layerJson), Layer.provide(FetchHttpClient.layer))
  })
)
