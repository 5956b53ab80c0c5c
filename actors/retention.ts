/**
 * The retention actor: every RETENTION_SWEEP_MS (10 minutes), in every process, it deletes audit events
 * older than AUDIT_RETENTION_DAYS and prunes the history of terminal transactions older than
 * TX_HISTORY_RETENTION_DAYS (0 keeps everything, the default; docs/decisions/production.md "Retention").
 * Each works in batches of BATCH rows, one statement and commit each, with a pause between, so a first
 * sweep over months of data never holds locks or a connection for long. Processes sweeping at once are
 * harmless: transactions held by another are skipped, an event deleted by another is simply gone.
 */
import { Duration, Effect, Layer, Schedule } from "effect"
import { AuditRetention } from "../src/audit/auditRetention.js"
import { AppConfig } from "../src/config.js"
import { HistoryRetention } from "../src/pipeline/historyRetention.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

const BATCH = 2_000
const PAUSE = Duration.millis(50)
const DAY_MS = 24 * 60 * 60 * 1000

/** Runs `prune` batch after batch until a batch comes back short; answers the rows pruned. */
const drain = (prune: (batch: number) => Effect.Effect<number>) =>
  Effect.iterate({ total: 0, last: BATCH }, {
    while: (state) => state.last >= BATCH,
    body: (state) => Effect.map(Effect.zipLeft(prune(BATCH), Effect.sleep(PAUSE)), (n) => ({ total: state.total + n, last: n }))
  }).pipe(Effect.map((state) => state.total))

/** One sweep at `now`: what each retention setting asks; answers the rows pruned of each. */
export const sweepRetention = (now: Date) =>
  Effect.gen(function* () {
    const { retention } = yield* AppConfig
    const audit = yield* AuditRetention
    const history = yield* HistoryRetention
    const cutoff = (days: number) => new Date(now.getTime() - days * DAY_MS)
    const auditEvents = retention.auditDays === 0 ? 0 : yield* drain((batch) => audit.pruneOlderThan(cutoff(retention.auditDays), batch))
    const transactions = retention.txHistoryDays === 0 ? 0 : yield* drain((batch) => history.pruneOlderThan(cutoff(retention.txHistoryDays), batch))
    return { auditEvents, transactions }
  })

export const RetentionLive = Layer.scopedDiscard(
  Effect.flatMap(AppConfig, (config) =>
    config.retention.auditDays === 0 && config.retention.txHistoryDays === 0
      ? Effect.void
      : superviseActor(
          "retention",
          (actor) =>
            Effect.repeat(
              Effect.gen(function* () {
                yield* actor.setStatus("running")
                const pruned = yield* sweepRetention(new Date())
                yield* actor.setQueueDepth(pruned.auditEvents + pruned.transactions)
                if (pruned.auditEvents + pruned.transactions > 0) yield* Effect.logInfo("retention", pruned)
                yield* actor.setStatus("idle")
              }),
              Schedule.spaced(`${config.retention.sweepMs} millis`)
            ).pipe(Effect.asVoid),
          { kind: "retention" }
        )
  )
)
