/**
 * One log line per transaction outcome (issue 32): when this process moves a transaction to `confirmed` or
 * `failed`, a line naming it with its ids (txId, tenant, wallet, agent), the signature or the failure
 * (errorCode, failedAt, the message), besides the traceId and txId a pipeline step's lines already carry
 * (stageTelemetry.ts). Transitions relayed from another process are logged there, not here.
 */
import { Effect } from "effect"
import type { StageEvent } from "../gateway/stageEventFeed.js"

const ids = (event: StageEvent) => ({
  txId: event.txId,
  tenantId: event.tenantId,
  walletId: event.walletId,
  ...(event.agentId === null ? {} : { agentId: event.agentId })
})

export const logOutcome = (event: StageEvent): Effect.Effect<void> => {
  if (event.status === "confirmed") {
    return Effect.logInfo("transaction confirmed").pipe(Effect.annotateLogs({ ...ids(event), ...(event.signature === undefined ? {} : { signature: event.signature }) }))
  }
  if (event.status === "failed") {
    return Effect.logWarning("transaction failed").pipe(
      Effect.annotateLogs({
        ...ids(event),
        ...(event.errorCode === undefined ? {} : { errorCode: event.errorCode }),
        ...(event.failedAt === undefined ? {} : { failedAt: event.failedAt }),
        ...(event.message === undefined ? {} : { reason: event.message }),
        ...(event.signature === undefined ? {} : { signature: event.signature })
      })
    )
  }
  return Effect.void
}
