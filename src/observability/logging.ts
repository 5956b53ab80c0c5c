/**
 * LOG_FORMAT=json: every log line is one JSON object (message, level, timestamp, annotations, spans),
 * for log shippers. Lines a pipeline step writes carry its transaction's `traceId` (the envelope's)
 * and `txId` as annotations (stageTelemetry.ts), so logs, audit events and traces join on one id.
 */
import { Effect, Layer, Logger } from "effect"
import { AppConfig } from "../config.js"

export const LoggingLive = Layer.unwrapEffect(
  Effect.map(AppConfig, (config) =>
    config.observability.logFormat === "json" ? Logger.replace(Logger.defaultLogger, Logger.jsonLogger) : Layer.empty
  )
)
