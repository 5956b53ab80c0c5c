/**
 * Names of the built-in metric counters (spec: Events rule 2), shared by the pipeline, the RPC pool
 * and the gateway so every writer and reader agrees. The list and its meaning live in
 * docs/decisions/audit.md. Audit events add `audit_event.<eventType>` on their own (AuditLog.record).
 */
import type { TransactionStatus } from "../../schemas/transaction.js"

/** One per transaction that reaches `confirmed`. */
export const TX_CONFIRMED = "tx.confirmed"
/** One per transaction that reaches `failed`. */
export const TX_FAILED = "tx.failed"
/** Sum of (confirmedAt - createdAt) in ms over confirmed transactions; divide by tx.confirmed for the mean. */
export const TX_CONFIRMATION_LATENCY_MS_TOTAL = "tx.confirmation_latency_ms_total"

/** Stage transitions: one per transition into `status` (tx.stage.simulating, tx.stage.policy_eval, ...). */
export const txStageMetric = (status: TransactionStatus) => `tx.stage.${status}`

/** Policy evaluation results: `policy.evaluation.allow`, `.deny`, `.require_approval`. */
export type PolicyOutcomeName = "allow" | "deny" | "require_approval"
export const policyEvaluationMetric = (decision: PolicyOutcomeName) => `policy.evaluation.${decision}`

/** One per move of an RPC call from one endpoint to the next. */
export const RPC_POOL_FAILOVER = "rpc.pool.failover"

/** One per outbox job attempt after the first (a retry of a processing failure or an expired lease). */
export const OUTBOX_RETRY_ATTEMPTS = "outbox.retry_attempts"

/** Gasless submissions (spec names). */
export const GASLESS_TRANSACTION_SUCCESS_TOTAL = "gasless_transaction_success_total"
export const GASLESS_TRANSACTION_FAILURE_TOTAL = "gasless_transaction_failure_total"
/** Total over all protocols, plus one per protocol: `gasless_protocol_usage_total.<protocol>`. */
export const GASLESS_PROTOCOL_USAGE_TOTAL = "gasless_protocol_usage_total"
export const gaslessProtocolUsageMetric = (protocol: string) => `${GASLESS_PROTOCOL_USAGE_TOTAL}.${protocol}`

/** Chaos injections that failed a stage: `chaos.injected.<stage>`. */
export const chaosInjectedMetric = (stage: string) => `chaos.injected.${stage}`

/** Webhook delivery outcomes: `webhook.deliveries.delivered`, `.failed_attempt`, `.dead` (one per attempt or row). */
export type WebhookOutcomeName = "delivered" | "failed_attempt" | "dead"
export const webhookDeliveriesMetric = (outcome: WebhookOutcomeName) => `webhook.deliveries.${outcome}`

/** The counter every audit event increments (spec: Events rule 1). */
export const auditEventMetric = (eventType: string) => `audit_event.${eventType}`

/** Audit events the database refused alone (their batch was written without them; each is logged). */
export const AUDIT_EVENT_DROPPED_TOTAL = "audit_event_dropped_total"
/** Counter deltas the database refused alone (e.g. past int8); each is logged. */
export const METRIC_COUNTER_DROPPED_TOTAL = "metric_counter_dropped_total"
