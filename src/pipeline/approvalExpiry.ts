/**
 * [n8] When an approval has expired, and what expiring it writes. An approval is valid strictly
 * before its `expiresAt`: at or after it, approving is refused (by approve, under the row's lock, and
 * again by the signer) and the transaction fails as expired, its reserved daily spend given back.
 * The approval expirer actor does the same for approvals nobody touched.
 */
import { Effect } from "effect"
import { MetricCounters } from "../audit/metricCounters.js"
import { txStageMetric, TX_FAILED } from "../audit/metricNames.js"
import { PolicyEngine } from "../policy/policyEngine.js"
import { StageEvents, transitionEventOf } from "./stageEvents.js"
import { TransactionRepo } from "./transactionRepo.js"
import type { TransactionRow } from "./transactionRow.js"

// When an approval counts is the signing rule's (the wallet signs only what was approved in time).
export { approvalExpired, approvedInTime } from "../wallet/signingPermission.js"

/**
 * Expiring an approval, with the services it needs: `expire` fails a transaction waiting at the gate
 * as expired and gives its reserved spend back (in the caller's SQL transaction, if any; undefined
 * when it was no longer waiting); `announce`, after the commit, counts the failure and publishes it.
 */
export const makeApprovalExpiry = Effect.gen(function* () {
  const repo = yield* TransactionRepo
  const policy = yield* PolicyEngine
  const metrics = yield* MetricCounters
  const events = yield* StageEvents

  const expire = (txId: string, approval: Readonly<Record<string, unknown>> | null) =>
    Effect.gen(function* () {
      const expiresAt = typeof approval?.expiresAt === "string" ? approval.expiresAt : "its expiry"
      const moved = yield* repo.transition(txId, {
        from: ["approval_gate"], to: "failed", stage: "policy", message: `approval expired at ${expiresAt}`,
        fields: {
          failedAt: "policy", errorCode: "POLICY_VIOLATION", error: `approval expired: no decision before ${expiresAt}`,
          approval: { ...approval, status: "expired", decidedAt: new Date().toISOString() }
        },
        eventType: "transaction.failed"
      })
      if (moved !== undefined) yield* policy.releaseSpend(txId)
      return moved
    })

  const announce = (moved: TransactionRow) =>
    Effect.gen(function* () {
      yield* metrics.increment(TX_FAILED)
      yield* metrics.increment(txStageMetric("failed"))
      yield* events.publish(transitionEventOf(moved, "approval expired"))
    })

  return { expire, announce }
})
