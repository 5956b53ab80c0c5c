/**
 * Concurrent POST /evaluate calls share their snapshot statement: a read that arrives while another
 * statement is in flight waits for it and then goes out with every other read queued meanwhile, as
 * ONE statement (whatIfSnapshot.ts, up to MAX_BATCH inputs). An idle service sends a lone read at
 * once, so batching adds no latency; under load it turns N round trips (and N plans, N socket
 * writes) into one. A failed statement fails every read of its batch (each then falls back alone).
 */
import { SqlClient } from "@effect/sql"
import { Deferred, Effect } from "effect"
import { readWhatIfSnapshots, type WhatIfInput, type WhatIfSnapshot } from "./whatIfSnapshot.js"

export const MAX_BATCH = 64

interface PendingRead {
  readonly input: WhatIfInput
  readonly result: Deferred.Deferred<WhatIfSnapshot | undefined, unknown>
}

export const makeWhatIfReadBatch = (sql: SqlClient.SqlClient) => {
  let queue: Array<PendingRead> = []
  let draining = false

  const runBatch = (batch: ReadonlyArray<PendingRead>) =>
    readWhatIfSnapshots(batch.map((pending) => pending.input)).pipe(
      Effect.provideService(SqlClient.SqlClient, sql),
      Effect.matchCauseEffect({
        onFailure: (cause) => Effect.forEach(batch, (pending) => Deferred.failCause(pending.result, cause), { discard: true }),
        onSuccess: (snapshots) => Effect.forEach(batch, (pending, i) => Deferred.succeed(pending.result, snapshots[i]), { discard: true })
      })
    )

  // One drain at a time: it sends what is queued, and again until the queue is empty.
  const drain: Effect.Effect<void> = Effect.suspend(() => {
    if (queue.length === 0) {
      draining = false
      return Effect.void
    }
    const batch = queue.slice(0, MAX_BATCH)
    queue = queue.slice(batch.length)
    return runBatch(batch).pipe(Effect.zipRight(drain))
  })

  /** The snapshot of one input (undefined: no such wallet for this caller). */
  const read = (input: WhatIfInput): Effect.Effect<WhatIfSnapshot | undefined, unknown> =>
    Effect.gen(function* () {
      const result = yield* Deferred.make<WhatIfSnapshot | undefined, unknown>()
      queue.push({ input, result })
      if (!draining) {
        draining = true
        yield* Effect.forkDaemon(drain)
      }
      return yield* Deferred.await(result)
    })

  return { read }
}
