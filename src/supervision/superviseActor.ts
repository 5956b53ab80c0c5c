/**
 * Runs an actor's body as a supervised fiber: registered in the ActorRegistry, restarted with
 * exponential backoff (100 ms doubling to 30 s) after a failure or defect, with its restarts and last
 * error visible; interrupted (and removed from the registry) when its scope closes.
 */
import { Cause, Duration, Effect, FiberId, Scope } from "effect"
import { type ActorHandle, ActorRegistry } from "./actorRegistry.js"

export interface SuperviseOptions {
  readonly kind: string
  readonly initialBackoff?: Duration.DurationInput
  readonly maxBackoff?: Duration.DurationInput
}

const describe = <E>(cause: Cause.Cause<E>) => {
  const failure = Cause.squash(cause)
  return failure instanceof Error ? failure.message : String(failure)
}

/** Forks `body(handle)` in the current scope under supervision; returns the handle. */
export const superviseActor = <E, R>(
  name: string,
  body: (handle: ActorHandle) => Effect.Effect<void, E, R>,
  options: SuperviseOptions
): Effect.Effect<ActorHandle, never, R | ActorRegistry | Scope.Scope> =>
  Effect.gen(function* () {
    const registry = yield* ActorRegistry
    const handle = yield* registry.register(name, options.kind)
    const initial = Duration.toMillis(Duration.decode(options.initialBackoff ?? "100 millis"))
    const maximum = Duration.toMillis(Duration.decode(options.maxBackoff ?? "30 seconds"))

    const loop = (backoff: number): Effect.Effect<void, never, R> =>
      Effect.gen(function* () {
        yield* handle.setStatus("running")
        const exit = yield* Effect.exit(body(handle))
        if (exit._tag === "Success") {
          yield* handle.setStatus("stopped")
          return
        }
        if (Cause.isInterruptedOnly(exit.cause)) return
        yield* handle.recordFailure(describe(exit.cause))
        yield* Effect.logWarning(`actor ${name} failed; restarting in ${backoff} ms`, describe(exit.cause))
        yield* handle.recordRestart()
        yield* Effect.sleep(Duration.millis(backoff))
        yield* loop(Math.min(backoff * 2, maximum))
      })

    const fiber = yield* Effect.forkScoped(loop(initial))
    yield* handle.setFiber(FiberId.threadName(fiber.id()))
    yield* Effect.addFinalizer(() => Effect.zipRight(handle.setStatus("stopped"), handle.remove()))
    return handle
  })

