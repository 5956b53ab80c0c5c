/**
 * The settlement resolver (issue 30): every TX_SETTLEMENT_SWEEP_MS, in every process, it settles the
 * transactions left unresolved at `submitting` (the outbox gave up while their bytes may have left)
 * against the chain, once the RPC answers: confirmed if one landed, failed "not landed: blockhash
 * expired at height H" once that is proven, else left for the next sweep (src/pipeline/settlement.ts).
 * Each transaction is settled on its own (an RPC failure or a defect of one leaves the others); two
 * processes settling the same one are harmless (every transition checks the status it leaves).
 */
import { Cause, Effect, Layer, Schedule } from "effect"
import { AppConfig } from "../src/config.js"
import { Outbox } from "../src/pipeline/outbox.js"
import { Settlement } from "../src/pipeline/settlement.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

/** How many unresolved transactions one sweep looks at (the least recently updated first). */
const SWEEP_LIMIT = 200

export const settleUnresolved = Effect.gen(function* () {
  const outbox = yield* Outbox
  const settlement = yield* Settlement
  yield* settlement.pruneSettled
  const waiting = yield* outbox.unresolved(SWEEP_LIMIT)
  let settled = 0
  let lastError: string | undefined
  for (const context of waiting) {
    const outcome = yield* Effect.exit(settlement.settleNow(context))
    if (outcome._tag === "Success") {
      if (outcome.value !== undefined) settled++
    } else {
      lastError = `transaction ${context.row.id}: ${Cause.pretty(outcome.cause).split("\n")[0]}`
      yield* Effect.logDebug(`settlement resolver: ${lastError}`)
    }
  }
  return { waiting: waiting.length - settled, settled, lastError }
})

export const SettlementResolverLive = Layer.scopedDiscard(
  Effect.flatMap(AppConfig, (config) =>
    superviseActor(
      "settlement-resolver",
      (actor) =>
        Effect.repeat(
          Effect.gen(function* () {
            yield* actor.setStatus("running")
            const { waiting, lastError } = yield* settleUnresolved
            yield* actor.setQueueDepth(waiting)
            if (lastError !== undefined) yield* actor.recordFailure(lastError)
            yield* actor.setStatus("idle")
          }),
          Schedule.spaced(`${config.outbox.settlementSweepMs} millis`)
        ).pipe(Effect.asVoid),
      { kind: "settlement-resolver" }
    )
  )
)
