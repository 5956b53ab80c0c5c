/**
 * The doorbell of a durable work queue's idle workers (the outbox, the webhook deliveries). `ring(n)` wakes
 * up to n of them (new jobs: enqueued in process, or announced by another process's NOTIFY); `ringAfter`
 * rings later (a job given back with a backoff becomes due then); and one poll tick every `pollMs` rings
 * once for each idle worker, for what no ring announces (a job due after another process's backoff, a
 * lease that expired there, a lost LISTEN). Rings beyond the idle workers are kept (up to 1,024) for the
 * next worker to go idle, which then claims at once.
 *
 * Idle workers wait on the doorbell alone: a race of each wait with its own timer cost two fibers and a
 * timer per idle wait, on the hot path.
 */
import { Effect, Queue, type Scope } from "effect"

/** How much later than asked `ringAfter` rings (see there). */
const RING_LATE_MS = 5

export interface Doorbell {
  readonly ring: (times?: number) => Effect.Effect<void>
  /** Rings for the job count another process's NOTIFY announced (its text): 1 to 64 rings, 1 when unreadable. */
  readonly ringAnnounced: (count: string) => Effect.Effect<void>
  readonly ringAfter: (delayMs: number) => Effect.Effect<void>
  /** Waits for a ring: new work, or the poll tick (at most pollMs away). */
  readonly waitForWork: Effect.Effect<void>
  /** How many workers wait for a ring now. */
  readonly idleWorkers: () => number
}

export const makeDoorbell = (pollMs: number): Effect.Effect<Doorbell, never, Scope.Scope> =>
  Effect.gen(function* () {
    const rings = yield* Queue.dropping<void>(1024)
    let idleWorkers = 0

    const ring = (times = 1) => Queue.offerAll(rings, Array.from({ length: times }, () => undefined)).pipe(Effect.asVoid)

    yield* Effect.sleep(`${pollMs} millis`).pipe(
      Effect.zipRight(Effect.suspend(() => (idleWorkers === 0 ? Effect.void : ring(idleWorkers)))),
      Effect.forever,
      Effect.forkScoped
    )

    const ringAnnounced = (count: string) => ring(Math.min(Math.max(Number.parseInt(count, 10) || 1, 1), 64))

    // A little late, never early: a timer fires on the event loop's millisecond clock, up to a millisecond
    // before `delayMs` has really passed, and a ring that came before the database's now() reached the
    // job's available_at would wake a worker that finds nothing due: the job would wait for the poll tick.
    const ringAfter = (delayMs: number) =>
      Effect.forkDaemon(Effect.zipRight(Effect.sleep(`${delayMs + RING_LATE_MS} millis`), ring())).pipe(Effect.asVoid)

    const waitForWork = Effect.suspend(() => {
      idleWorkers++
      return Queue.take(rings).pipe(Effect.ensuring(Effect.sync(() => idleWorkers--)))
    })

    return { ring, ringAnnounced, ringAfter, waitForWork, idleWorkers: () => idleWorkers }
  })
