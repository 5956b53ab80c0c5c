/**
 * How the service's named counters (metricNames.ts, durable in SQL and shared by every process) appear
 * in the Prometheus text format: the spec's dotted names become metric families with labels, so
 * `audit_event.transaction.created` is `custody_audit_events_total{event_type="transaction.created"}`.
 * A counter of no known family (posted with /metrics/inc, say) keeps its exact name as a label of
 * `custody_counter_total{name="..."}`: names are free text there, and two never collide.
 */

export interface CounterSample {
  readonly family: string
  readonly help: string
  readonly labels: Readonly<Record<string, string>>
}

interface Family {
  readonly family: string
  readonly help: string
  readonly label?: string
}

/** Counters of one fixed name. */
const FIXED: Readonly<Record<string, Family>> = {
  "tx.confirmed": { family: "custody_tx_confirmed_total", help: "Transactions that reached confirmed" },
  "tx.failed": { family: "custody_tx_failed_total", help: "Transactions that reached failed" },
  "tx.confirmation_latency_ms_total": {
    family: "custody_tx_confirmation_latency_ms_total",
    help: "Sum of creation-to-confirmation milliseconds over confirmed transactions (spec counter)"
  },
  "rpc.pool.failover": { family: "custody_rpc_pool_failovers_total", help: "RPC calls moved from one endpoint to the next" },
  "outbox.retry_attempts": { family: "custody_outbox_retry_attempts_total", help: "Outbox job attempts after the first" },
  gasless_transaction_success_total: { family: "custody_gasless_transaction_success_total", help: "Gasless submissions that succeeded" },
  gasless_transaction_failure_total: { family: "custody_gasless_transaction_failure_total", help: "Gasless submissions that failed" },
  gasless_protocol_usage_total: { family: "custody_gasless_protocol_usage_total", help: "Gasless submissions over all protocols" },
  audit_event_dropped_total: { family: "custody_audit_event_dropped_total", help: "Audit events the database refused alone" },
  metric_counter_dropped_total: { family: "custody_metric_counter_dropped_total", help: "Counter deltas the database refused alone" }
}

/** Counters named `<prefix><label value>`. */
const PREFIXED: ReadonlyArray<readonly [prefix: string, family: Family & { readonly label: string }]> = [
  ["audit_event.", { family: "custody_audit_events_total", help: "Audit events recorded, by event type", label: "event_type" }],
  ["tx.stage.", { family: "custody_tx_stage_transitions_total", help: "Transaction stage transitions, by the status entered", label: "status" }],
  ["policy.evaluation.", { family: "custody_policy_evaluations_total", help: "Policy evaluation results, by decision", label: "decision" }],
  ["chaos.injected.", { family: "custody_chaos_injected_total", help: "Chaos failures injected, by stage", label: "stage" }],
  ["webhook.deliveries.", { family: "custody_webhook_delivery_outcomes_total", help: "Webhook delivery attempts by outcome (delivered, failed_attempt, dead)", label: "outcome" }],
  ["gasless_protocol_usage_total.", { family: "custody_gasless_protocol_usage_by_protocol_total", help: "Gasless submissions, by protocol", label: "protocol" }]
]

const OTHER: Family = { family: "custody_counter_total", help: "Counters of no built-in family, by their exact name", label: "name" }

/** The Prometheus family and labels of one named counter. */
export const counterSampleOf = (name: string): CounterSample => {
  const fixed = FIXED[name]
  if (fixed !== undefined) return { family: fixed.family, help: fixed.help, labels: {} }
  for (const [prefix, family] of PREFIXED) {
    if (name.startsWith(prefix) && name.length > prefix.length) {
      return { family: family.family, help: family.help, labels: { [family.label]: name.slice(prefix.length) } }
    }
  }
  return { family: OTHER.family, help: OTHER.help, labels: { name } }
}
