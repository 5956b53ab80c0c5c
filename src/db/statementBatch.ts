/**
 * Shares one SQL statement between concurrent callers: a call that arrives while a statement is in
 * flight waits, and then goes out together with every other call queued meanwhile, as ONE statement
 * (up to `maxBatch` inputs). An idle service sends a lone call at once, so batching adds no latency;
 * under load it turns N round trips (N plans, N commits, N socket writes) into one. One statement at
 * a time: bigger batches save more than a second statement in flight would save in waiting.
 *
 * `run` answers the inputs in order. When a statement of several inputs fails, each input is tried
 * again alone, so one bad input fails only its own caller. A statement that lost its connection is
 * different: no input caused it, and PostgreSQL may have committed it before the answer was lost. A
 * write tried again would then find its own change and take it for someone else's (a stage transition
 * would answer "moved by another worker", and its job be finished with the transaction left half way),
 * so unless the statement is `repeatable`, every caller gets the lost connection, as it would alone.
 */
import { Effect, Exit } from "effect"
import { isConnectionLoss } from "./connectionLoss.js"

export interface StatementBatchOptions {
  /** Inputs in one statement at most. */
  readonly maxBatch: number
  /**
   * Whether an input may run again after its statement lost the connection: true for reads, and for
   * writes that undo a lost answer themselves; false for writes whose repeat would misread their own change.
   */
  readonly repeatable: boolean
}

/** A queued call: its input, and its outcome once the statement answered (a callback, not a Deferred: this is per call on the hot path). */
interface Waiting<I, O, E> {
  readonly input: I
  outcome: Exit.Exit<O, E> | undefined
  resume: ((outcome: Exit.Exit<O, E>) => void) | undefined
}

const settle = <O, E>(waiting: Waiting<unknown, O, E>, outcome: Exit.Exit<O, E>) =>
  Effect.sync(() => {
    waiting.outcome = outcome
    waiting.resume?.(outcome)
  })

export const makeStatementBatch = <I, O, E>(
  run: (inputs: ReadonlyArray<I>) => Effect.Effect<ReadonlyArray<O>, E>,
  options: StatementBatchOptions
) => {
  let queue: Array<Waiting<I, O, E>> = []
  let draining = false

  const answer = (batch: ReadonlyArray<Waiting<I, O, E>>): Effect.Effect<void> =>
    run(batch.map((waiting) => waiting.input)).pipe(
      Effect.matchCauseEffect({
        onFailure: (cause) =>
          batch.length === 1 || (!options.repeatable && isConnectionLoss(cause))
            ? Effect.forEach(batch, (waiting) => settle(waiting, Exit.failCause(cause)), { discard: true })
            : Effect.forEach(batch, (waiting) => answer([waiting]), { discard: true }),
        onSuccess: (outputs) => Effect.forEach(batch, (waiting, i) => settle(waiting, Exit.succeed(outputs[i]!)), { discard: true })
      })
    )

  // The drain sends what is queued, and again until the queue is empty; then it ends.
  const drain: Effect.Effect<void> = Effect.suspend(() => {
    if (queue.length === 0) {
      draining = false
      return Effect.void
    }
    const batch = queue.slice(0, options.maxBatch)
    queue = queue.slice(batch.length)
    return answer(batch).pipe(Effect.zipRight(drain))
  })

  /** The output for one input, from a statement shared with whatever else is queued. */
  const submit = (input: I): Effect.Effect<O, E> =>
    Effect.suspend(() => {
      const waiting: Waiting<I, O, E> = { input, outcome: undefined, resume: undefined }
      queue.push(waiting)
      const outcome = Effect.async<O, E>((resume) => {
        if (waiting.outcome !== undefined) resume(waiting.outcome)
        else waiting.resume = resume
      })
      if (draining) return outcome
      draining = true
      return Effect.zipRight(Effect.forkDaemon(drain), outcome)
    })

  return { submit }
}
