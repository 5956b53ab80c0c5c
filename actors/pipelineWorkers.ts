/**
 * Pipeline workers: TX_PIPELINE_WORKERS supervised fibers per process, each claiming one outbox job at
 * a time (lease + SKIP LOCKED, so any number of processes share the queue; or taking one its create claimed and
 * handed over, jobHandoff.ts), its lease kept while the job
 * runs (leaseKeeper.ts), and completing it or giving it back with a backoff. A job whose lease is lost
 * (this process stalled and another took over) is interrupted, never finished twice.
 */
import { Effect, Layer, Schedule } from "effect"
import { OUTBOX_RETRY_ATTEMPTS } from "../src/audit/metricNames.js"
import { MetricCounters } from "../src/audit/metricCounters.js"
import { AppConfig } from "../src/config.js"
import { PipelineExecutor } from "../src/pipeline/executor.js"
import { type ClaimedJob, Outbox } from "../src/pipeline/outbox.js"
import { Retryable } from "../src/pipeline/stageFailure.js"
import { inBackground } from "./backgroundPriority.js"
import { LEASE_LOST, makeLeaseKeeper } from "./leaseKeeper.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

const backoffMs = (attempts: number) => Math.min(100 * 2 ** Math.max(0, attempts - 1), 10_000)

/**
 * What a worker writes about its job after the run (done, given back, given up) is tried again for about
 * 1.5 s when it fails: PostgreSQL may just have ended the connection (a restart, a failover; the pool opens
 * another), and a job left leased waits out its lease (TX_OUTBOX_LEASE_MS) before any worker takes it
 * again. Each statement is fenced by the lease or the transaction's state, so a repeat changes nothing; a
 * repeat whose first try committed with its answer lost finds its own write and answers the same (outbox.ts).
 */
const persistently = <A>(statement: Effect.Effect<A>) =>
  statement.pipe(Effect.sandbox, Effect.retry(Schedule.exponential("50 millis").pipe(Schedule.intersect(Schedule.recurs(5)))), Effect.unsandbox)

export const PipelineWorkersLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const outbox = yield* Outbox
    const executor = yield* PipelineExecutor
    const metrics = yield* MetricCounters
    if (config.outbox.workers === 0) return
    const leases = yield* makeLeaseKeeper

    const lostLease = (job: ClaimedJob) => Effect.logInfo(`outbox job ${job.id}: lease lost, another worker took it over`)

    const handle = (job: ClaimedJob) =>
      Effect.gen(function* () {
        if (job.attempts > 1) yield* metrics.increment(OUTBOX_RETRY_ATTEMPTS)
        const exit = yield* Effect.exit(leases.runLeased(job, executor.run(job.run)))
        if (exit._tag === "Success") {
          // Another worker holds the job now: leave it to that worker (an interrupted run is no failure of
          // this worker's: passed on as one, it would end the worker fiber for good).
          if (exit.value === LEASE_LOST) return yield* lostLease(job)
          // A run that ended with its own transition already finished the job in that statement. A run that
          // found the transaction moved on by another worker before the renewal noticed: the fenced completion
          // tells it the same.
          if (!exit.value && !(yield* persistently(outbox.complete(job)))) yield* lostLease(job)
          return
        }
        const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
        if (failure instanceof Retryable) {
          const status = yield* persistently(outbox.release(job, failure.message, backoffMs(job.attempts)))
          if (status === "failed") yield* persistently(executor.giveUp(job.tx_id, failure))
          else yield* outbox.notifyLater(backoffMs(job.attempts))
          return
        }
        // A defect in our code: give the job back (it may be a passing fault) and let supervision log it.
        const status = yield* persistently(outbox.release(job, "unexpected error", backoffMs(job.attempts)))
        if (status === "failed") yield* persistently(executor.giveUp(job.tx_id, new Retryable({ message: "unexpected error in the pipeline", failedAt: "build" })))
        return yield* Effect.failCause(exit.cause)
      })

    for (let index = 0; index < config.outbox.workers; index++) {
      yield* superviseActor(
        `pipeline-worker-${index + 1}`,
        (actor) =>
          inBackground(Effect.forever(
            Effect.gen(function* () {
              const job = yield* outbox.claim
              if (job === undefined) {
                yield* actor.setStatus("idle")
                yield* outbox.waitForWork
                return
              }
              yield* actor.setStatus("running")
              yield* handle(job)
              // A job claimed at its insert was handed over because a worker was idle: no backlog was waiting, and a
              // job queued since rang for a worker. So the worker waits for a ring instead of asking the table.
              if (job.claimedAtInsert === true) {
                yield* actor.setStatus("idle")
                yield* outbox.waitForWork
              }
            })
          )),
        { kind: "pipeline-worker" }
      )
    }
  })
)
