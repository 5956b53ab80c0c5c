/**
 * Background priority for actors whose work can wait a few milliseconds (the pipeline workers), so
 * that the gateway answers first.
 *
 * Effect's default scheduler resumes every fiber in a microtask: a busy pipeline keeps the microtask
 * queue full, and a request that arrives meanwhile waits behind all of it, at each of its own steps.
 * Fibers run with `inBackground` are resumed from one queue that is drained with `setImmediate`, a
 * slice of at most SLICE_MS at a time: between two slices Node reads the sockets, and request fibers
 * (default scheduler) run at once. The background work still gets every cycle the requests leave, and
 * at least one slice per turn of the event loop, so it is never starved.
 */
import { Effect, Scheduler } from "effect"

/** Longest run of background steps before the event loop gets the thread back. */
const SLICE_MS = 4

const makeBackgroundScheduler = (): Scheduler.Scheduler => {
  let tasks: Array<Scheduler.Task> = []
  let next = 0
  let scheduled = false

  const drain = () => {
    const deadline = performance.now() + SLICE_MS
    try {
      while (next < tasks.length) {
        const task = tasks[next]!
        next++
        task()
        if (performance.now() >= deadline) break
      }
    } finally {
      // (finally: a task that throws must not leave the rest of the queue unscheduled)
      if (next >= tasks.length) {
        tasks = []
        next = 0
        scheduled = false
      } else {
        // Drop what ran, so the queue does not grow without bound under steady load.
        if (next > 1024) {
          tasks = tasks.slice(next)
          next = 0
        }
        setImmediate(drain)
      }
    }
  }

  return Scheduler.make((task) => {
    tasks.push(task)
    if (!scheduled) {
      scheduled = true
      setImmediate(drain)
    }
  })
}

const backgroundScheduler = makeBackgroundScheduler()

/** Runs `effect` (and every fiber it forks) at background priority. */
export const inBackground = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withScheduler(effect, backgroundScheduler)
