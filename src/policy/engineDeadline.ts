/**
 * The policy engine's bound (ENGINE_TIMEOUT, docs/decisions/policy.md [fail-closed-engine]): a decision
 * still running when it passes is interrupted and fails with a TimeoutException, which the engine turns
 * into a deny. Effect.timeout does the same by racing the decision's fiber against a second fiber that
 * only sleeps, then merging the winner's fiber refs into the caller's: about 55 of the 1,290 Effect
 * operations of a closed-loop transfer (docs/benchmarks.md, fifth session). Here the decision runs in one
 * child fiber, and a plain timer ends the wait.
 */
import { Cause, Duration, Effect, type Exit, Fiber } from "effect"

export const withEngineDeadline = (duration: Duration.DurationInput) => {
  const millis = Duration.toMillis(duration)
  // Effect.timeout's own message, so a deny reads as it did.
  const message = `Operation timed out after '${Duration.format(duration)}'`
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | Cause.TimeoutException, R> =>
    Effect.uninterruptibleMask((restore) =>
      Effect.flatMap(Effect.fork(restore(self)), (decision) =>
        restore(
          Effect.async<A, E | Cause.TimeoutException>((resume) => {
            const settled = (exit: Exit.Exit<A, E>) => {
              clearTimeout(timer)
              resume(exit)
            }
            const timer = setTimeout(() => {
              decision.removeObserver(settled)
              resume(Effect.zipRight(Fiber.interrupt(decision), Effect.fail(new Cause.TimeoutException(message))))
            }, millis)
            // Called at once when the decision has already ended.
            decision.addObserver(settled)
            return Effect.sync(() => {
              clearTimeout(timer)
              decision.removeObserver(settled)
            })
          })
        ).pipe(
          // The caller was interrupted while it waited: so is the decision.
          Effect.onInterrupt(() => Fiber.interrupt(decision))
        )
      )
    )
}
