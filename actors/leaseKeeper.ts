/**
 * The lease keeper: one supervised fiber per process keeps the outbox leases of every job this process's
 * workers run. A job's lease is renewed a third of a lease into its run and every third after that, in one
 * statement for all the jobs due at that tick. A job whose renewal finds its lease gone (this process
 * stalled and another worker claimed it) is marked lost and its run interrupted: it is no longer this
 * process's to finish. (Each job used to fork its own keeper fiber and timer: two fibers per job on the
 * hot path, where most jobs end long before their first renewal.)
 *
 * A renewal that fails (the database briefly away) is logged and tried again at the next tick; a lease
 * that expires meanwhile is found lost by the renewal after, as it would be by a stalled process.
 */
import { Effect, Fiber, Schedule } from "effect"
import { type ClaimedJob, Outbox } from "../src/pipeline/outbox.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

/** What a run answers when its lease was lost while it ran. */
export const LEASE_LOST = "lease lost" as const

interface HeldJob {
  readonly job: ClaimedJob
  readonly run: Fiber.RuntimeFiber<unknown, unknown>
  renewAt: number
  lost: boolean
}

export const makeLeaseKeeper = Effect.gen(function* () {
  const outbox = yield* Outbox
  const renewEveryMs = Math.max(250, Math.floor(outbox.leaseMs / 3))
  const held = new Map<string, HeldJob>()

  const renewDue = Effect.suspend(() => {
    const now = Date.now()
    const due = [...held.values()].filter((entry) => !entry.lost && entry.renewAt <= now)
    if (due.length === 0) return Effect.void
    return outbox.renewLeases(due.map((entry) => entry.job)).pipe(
      Effect.flatMap((stillHeld) =>
        Effect.forEach(due, (entry) => {
          if (stillHeld.has(entry.job.id)) {
            entry.renewAt = now + renewEveryMs
            return Effect.void
          }
          entry.lost = true
          return Fiber.interruptFork(entry.run)
        }, { discard: true })
      ),
      Effect.catchAllCause((cause) => Effect.logWarning("outbox lease renewal failed; trying again at the next tick", cause))
    )
  })

  yield* superviseActor(
    "pipeline-lease-keeper",
    (actor) =>
      Effect.repeat(
        Effect.zipRight(renewDue, Effect.suspend(() => actor.setQueueDepth(held.size))),
        Schedule.spaced(`${Math.max(50, Math.floor(renewEveryMs / 4))} millis`)
      ).pipe(Effect.asVoid),
    { kind: "pipeline-lease-keeper" }
  )

  /** Runs `work` while the job's lease is kept: its result, or LEASE_LOST when another worker took the job over meanwhile. */
  const runLeased = <A, E, R>(job: ClaimedJob, work: Effect.Effect<A, E, R>) =>
    Effect.gen(function* () {
      const run = yield* Effect.fork(work)
      const entry: HeldJob = { job, run, renewAt: Date.now() + renewEveryMs, lost: false }
      held.set(job.id, entry)
      const exit = yield* Fiber.await(run).pipe(Effect.ensuring(Effect.sync(() => held.delete(job.id))))
      if (entry.lost) return LEASE_LOST
      return yield* exit
    })

  return { runLeased }
})
