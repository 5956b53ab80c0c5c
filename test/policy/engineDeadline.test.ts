/**
 * The policy engine's bound (src/policy/engineDeadline.ts): a decision that ends in time passes through
 * unchanged; one still running when the bound passes is interrupted (its finalizers run) and fails with
 * Effect's TimeoutException, which the engine turns into a deny; a caller interrupted while it waits
 * interrupts the decision too.
 */
import { Cause, Deferred, Effect, Exit, Fiber } from "effect"
import { describe, expect, it } from "vitest"
import { withEngineDeadline } from "../../src/policy/engineDeadline.js"

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.exit(effect))

describe("the policy engine's deadline", () => {
  it("passes a decision that ends in time through, success or failure", async () => {
    expect(await run(withEngineDeadline("1 second")(Effect.succeed("allow")))).toEqual(Exit.succeed("allow"))
    const failed = await run(withEngineDeadline("1 second")(Effect.fail("store unreachable")))
    expect(Exit.isFailure(failed) ? Cause.squash(failed.cause) : undefined).toBe("store unreachable")
    // One that takes a while but less than the bound.
    expect(await run(withEngineDeadline("1 second")(Effect.as(Effect.sleep("50 millis"), "late but in time")))).toEqual(Exit.succeed("late but in time"))
  })

  it("interrupts a decision still running at the bound and fails with a TimeoutException", async () => {
    let finalized = false
    const started = Date.now()
    // Read while the caller still runs: a decision left behind would be interrupted only when its parent ends.
    const { exit, finalizedAtDeny } = await Effect.runPromise(
      Effect.gen(function* () {
        const exit = yield* Effect.exit(withEngineDeadline("200 millis")(Effect.never.pipe(Effect.ensuring(Effect.sync(() => void (finalized = true))))))
        return { exit, finalizedAtDeny: finalized }
      })
    )
    const elapsed = Date.now() - started
    expect(Exit.isFailure(exit)).toBe(true)
    const failure = Exit.isFailure(exit) ? Cause.failureOption(exit.cause) : undefined
    expect(failure?._tag === "Some" && Cause.isTimeoutException(failure.value)).toBe(true)
    expect(failure?._tag === "Some" && (failure.value as Cause.TimeoutException).message).toBe("Operation timed out after '200ms'")
    // The decision was interrupted before the failure reached the caller, not left running behind the deny.
    expect(finalizedAtDeny).toBe(true)
    expect(elapsed).toBeGreaterThanOrEqual(190)
    expect(elapsed).toBeLessThan(2_000)
  })

  it("interrupts the decision when its caller is interrupted", async () => {
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const decisionStarted = yield* Deferred.make<void>()
        const decisionInterrupted = yield* Deferred.make<void>()
        const decision = Deferred.succeed(decisionStarted, undefined).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Deferred.succeed(decisionInterrupted, undefined))
        )
        const caller = yield* Effect.fork(withEngineDeadline("10 seconds")(decision))
        yield* Deferred.await(decisionStarted)
        yield* Fiber.interrupt(caller)
        return yield* Deferred.isDone(decisionInterrupted)
      })
    )
    expect(outcome).toBe(true)
  })
})
