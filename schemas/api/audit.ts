/** Audit and metrics endpoints (spec: Health and operations, Events). */
import * as Schema from "effect/Schema"
import { AuditEvent, AuditEventList, AuditQuery, MetricName, MetricsIncBody, PostAuditEventBody } from "../audit.js"
import { Count } from "../common.js"
import { endpoint } from "./endpoint.js"

export const AuditApi = {
  post: endpoint("audit", "POST", "/api/v1/audit/events", {
    summary: "Record a custom audit event",
    body: PostAuditEventBody,
    success: AuditEvent.annotations({ identifier: "AuditEvent" }),
    successStatuses: [201]
  }),
  list: endpoint("audit", "GET", "/api/v1/audit/events", { summary: "Audit events, newest first", query: AuditQuery, success: AuditEventList }),
  metrics: endpoint("audit", "GET", "/api/v1/metrics", {
    summary: "The deployment's counters",
    success: Schema.Record({ key: Schema.String, value: Count })
  }),
  incrementMetric: endpoint("audit", "POST", "/api/v1/metrics/inc", {
    summary: "Add to a counter",
    body: MetricsIncBody,
    success: Schema.Struct({ name: MetricName, value: Count })
  })
}
