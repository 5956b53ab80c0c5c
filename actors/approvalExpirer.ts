/**
 * The approval expirer ([n8]): a transaction waiting at the approval gate past its expiry (APPROVAL_TTL_MS,
 * 24 hours by default) fails with POLICY_VIOLATION ("approval expired"), never signs, and its reserved
 * daily spend is given back. It runs every APPROVAL_EXPIRY_SWEEP_MS (a minute) in every process; the transition's status check makes concurrent expirers
 * harmless. Approve and the signer check the expiry themselves (src/pipeline/approvalExpiry.ts).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../src/config.js"
import { makeApprovalExpiry } from "../src/pipeline/approvalExpiry.js"
import { TransactionRepo } from "../src/pipeline/transactionRepo.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

export const expireApprovals = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  const expiry = yield* makeApprovalExpiry
  const due = yield* (yield* TransactionRepo).waitingPastExpiry(new Date(), 500)
  for (const row of due) {
    // The transition and the release of the reserved daily spend commit together.
    const moved = yield* sql.withTransaction(expiry.expire(row.id, row.approval)).pipe(Effect.orDie)
    if (moved !== undefined) yield* expiry.announce(moved)
  }
  return due.length
})

export const ApprovalExpirerLive = Layer.scopedDiscard(
  Effect.flatMap(AppConfig, (config) =>
    superviseActor(
      "approval-expirer",
      (actor) =>
        Effect.repeat(
          Effect.gen(function* () {
            yield* actor.setStatus("running")
            const expired = yield* expireApprovals
            yield* actor.setQueueDepth(expired)
            yield* actor.setStatus("idle")
          }),
          Schedule.spaced(`${config.approvals.sweepMs} millis`)
        ).pipe(Effect.asVoid),
      { kind: "approval-expirer" }
    )
  )
)
