/**
 * Background priority (actors/backgroundPriority.ts): the pipeline workers' steps wait behind a
 * request's steps, hand the thread back to Node's event loop between slices (so sockets are read), and
 * still all run.
 */
import { Effect, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { inBackground } from "../../actors/backgroundPriority.js"

/** `count` steps, each one recorded and then a yield to the scheduler. */
const steps = (count: number, onStep: () => void) =>
  Effect.forEach(Array.from({ length: count }), () => Effect.zipRight(Effect.sync(onStep), Effect.yieldNow()), { discard: true })

const busyFor = (ms: number) => {
  const until = performance.now() + ms
  while (performance.now() < until) {
    // a step of synchronous work (building, hashing, parsing) as the pipeline does
  }
}

describe("background priority", () => {
  it("runs a request's steps before the background steps queued beside them, and then finishes the background work", async () => {
    let backgroundSteps = 0
    let backgroundStepsWhenRequestDone = -1
    await Effect.runPromise(
      Effect.gen(function* () {
        const background = yield* Effect.fork(inBackground(steps(50, () => backgroundSteps++)))
        const request = yield* Effect.fork(steps(50, () => undefined))
        yield* Fiber.join(request)
        backgroundStepsWhenRequestDone = backgroundSteps
        yield* Fiber.join(background)
      })
    )
    // The request's 50 steps went first: at most the background fiber's first step ran before them.
    expect(backgroundStepsWhenRequestDone).toBeLessThanOrEqual(1)
    expect(backgroundSteps).toBe(50)
  })

  it("gives the event loop back between slices of background work, where the default scheduler does not", async () => {
    const stepsBeforeTheEventLoopRan = async (run: (effect: Effect.Effect<void>) => Effect.Effect<void>) => {
      let done = 0
      let seenByEventLoop = -1
      setImmediate(() => {
        seenByEventLoop = done
      })
      // 40 steps of 1 ms of synchronous work each.
      await Effect.runPromise(run(steps(40, () => {
        busyFor(1)
        done++
      })))
      await new Promise((resolve) => setImmediate(resolve)) // the first callback has run by now
      return seenByEventLoop
    }
    const inDefault = await stepsBeforeTheEventLoopRan((effect) => effect)
    const inBackgroundPriority = await stepsBeforeTheEventLoopRan(inBackground)
    expect(inDefault).toBe(40)
    expect(inBackgroundPriority).toBeLessThan(40)
    expect(inBackgroundPriority).toBeGreaterThanOrEqual(0)
  })
})
