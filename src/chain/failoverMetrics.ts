/**
 * Counts RPC pool failovers: every move of a call to the next endpoint increments `rpc.pool.failover`
 * and records an audit event `rpc.failover` (tenant `system`, category `operations`). During an outage
 * a pair of endpoints may fail over many times a second, so the audit event is written at most once per
 * (from, to) pair every 30 s, carrying how many failovers it stands for; the counter counts all.
 */
import { Effect, FiberSet, Layer } from "effect"
import { AuditLog } from "../audit/auditLog.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { RPC_POOL_FAILOVER } from "../audit/metricNames.js"
import { ChainClient } from "./chainClient.js"

/** Tenant of events about the deployment itself: visible to keys not bound to a tenant. */
export const SYSTEM_TENANT = "system"
const AUDIT_INTERVAL_MS = 30_000

export const RpcFailoverMetricsLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const chain = yield* ChainClient
    const counters = yield* MetricCounters
    const audit = yield* AuditLog
    // Fibers forked from the pool's callback end with this layer's scope.
    const run = yield* FiberSet.makeRuntime<never, void, never>()
    const lastAudit = new Map<string, { at: number; suppressed: number }>()
    let active = true
    yield* Effect.addFinalizer(() => Effect.sync(() => void (active = false)))

    chain.onFailover((from, to) => {
      if (!active) return
      const pair = `${from} -> ${to}`
      const now = Date.now()
      const previous = lastAudit.get(pair)
      const writeAudit = previous === undefined || now - previous.at >= AUDIT_INTERVAL_MS
      const count = writeAudit ? 1 + (previous?.suppressed ?? 0) : 0
      lastAudit.set(pair, writeAudit ? { at: now, suppressed: 0 } : { at: previous?.at ?? now, suppressed: (previous?.suppressed ?? 0) + 1 })
      run(
        Effect.gen(function* () {
          yield* counters.increment(RPC_POOL_FAILOVER)
          if (!writeAudit) return
          yield* audit.record({
            tenantId: SYSTEM_TENANT,
            eventType: "rpc.failover",
            message: `RPC call failed over from ${from} to ${to}`,
            metadata: { from, to, failovers: count },
            entityType: "rpc_endpoint",
            category: "operations"
          })
        }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("could not record an RPC failover", cause)))
      )
    })
  })
)
