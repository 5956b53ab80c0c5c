import { SqlError } from "@effect/sql/SqlError"
import { Deferred, Effect, Either } from "effect"
import { describe, expect, it } from "vitest"
import { makeStatementBatch } from "../../src/db/statementBatch.js"

/** A fake statement that records each batch it was given and waits for `gate` before answering. */
const recordingStatement = (gate: Deferred.Deferred<void>) => {
  const batches: Array<ReadonlyArray<number>> = []
  const run = (inputs: ReadonlyArray<number>) =>
    Effect.gen(function* () {
      batches.push(inputs)
      yield* Deferred.await(gate)
      if (inputs.includes(13)) return yield* Effect.fail(`13 is refused (batch of ${inputs.length})`)
      // the connection went away under a shared statement (it may have committed); alone, it answers
      if (inputs.length > 1 && inputs.includes(99)) return yield* Effect.fail(new SqlError({ message: "Connection error", cause: new Error("Connection terminated unexpectedly") }))
      return inputs.map((n) => n * 10)
    })
  return { batches, run }
}

describe("statement batch", () => {
  it("sends a lone call at once, then everything that queued behind it as one batch", async () => {
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const statement = recordingStatement(gate)
        const batch = makeStatementBatch(statement.run, { maxBatch: 64, repeatable: false })
        const first = yield* Effect.fork(batch.submit(1))
        yield* Effect.yieldNow()
        const rest = yield* Effect.fork(Effect.all([2, 3, 4, 5].map(batch.submit), { concurrency: "unbounded" }))
        yield* Effect.yieldNow()
        yield* Deferred.succeed(gate, undefined)
        return { first: yield* first.await, rest: yield* rest.await, batches: statement.batches }
      })
    )
    expect(result.first).toMatchObject({ _tag: "Success", value: 10 })
    expect(result.rest).toMatchObject({ _tag: "Success", value: [20, 30, 40, 50] })
    expect(result.batches).toEqual([[1], [2, 3, 4, 5]])
  })

  it("tries each call of a failed batch alone, so only the bad input fails", async () => {
    const result = await Effect.runPromise(
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const statement = recordingStatement(gate)
        const batch = makeStatementBatch(statement.run, { maxBatch: 64, repeatable: false })
        const first = yield* Effect.fork(batch.submit(11))
        yield* Effect.yieldNow()
        const queued = yield* Effect.fork(Effect.all([12, 13, 14].map((n) => Effect.either(batch.submit(n))), { concurrency: "unbounded" }))
        yield* Effect.yieldNow()
        yield* Deferred.succeed(gate, undefined)
        return { first: yield* first.await, queued: yield* queued.await, batches: statement.batches }
      })
    )
    expect(result.first).toMatchObject({ _tag: "Success", value: 110 })
    const answers = result.queued._tag === "Success" ? result.queued.value : []
    expect(answers.map((a) => (Either.isRight(a) ? a.right : a.left))).toEqual([120, "13 is refused (batch of 1)", 140])
    // One shared attempt for the three, then each alone.
    expect(result.batches).toEqual([[11], [12, 13, 14], [12], [13], [14]])
  })

  for (const repeatable of [false, true]) {
    it(`after a lost connection, ${repeatable ? "tries each call of a repeatable batch alone" : "fails every call of a batch that is not repeatable (it may have committed)"}`, async () => {
      const result = await Effect.runPromise(
        Effect.gen(function* () {
          const gate = yield* Deferred.make<void>()
          const statement = recordingStatement(gate)
          const batch = makeStatementBatch(statement.run, { maxBatch: 64, repeatable })
          const first = yield* Effect.fork(batch.submit(1))
          yield* Effect.yieldNow()
          const queued = yield* Effect.fork(Effect.all([98, 99].map((n) => Effect.either(batch.submit(n))), { concurrency: "unbounded" }))
          yield* Effect.yieldNow()
          yield* Deferred.succeed(gate, undefined)
          yield* first.await
          const answers = yield* queued.await
          return { answers: answers._tag === "Success" ? answers.value : [], batches: statement.batches }
        })
      )
      const outcomes = result.answers.map((a) => (Either.isRight(a) ? a.right : (a.left as { message?: string }).message))
      if (repeatable) {
        expect(outcomes).toEqual([980, 990])
        expect(result.batches).toEqual([[1], [98, 99], [98], [99]])
      } else {
        expect(outcomes).toEqual(["Connection error", "Connection error"])
        expect(result.batches).toEqual([[1], [98, 99]])
      }
    })
  }

  it("never puts more than maxBatch calls in one statement", async () => {
    const batches = await Effect.runPromise(
      Effect.gen(function* () {
        const gate = yield* Deferred.make<void>()
        const statement = recordingStatement(gate)
        const batch = makeStatementBatch(statement.run, { maxBatch: 3, repeatable: false })
        const all = yield* Effect.fork(Effect.all([1, 2, 3, 4, 5, 6, 7].map(batch.submit), { concurrency: "unbounded" }))
        yield* Effect.yieldNow()
        yield* Deferred.succeed(gate, undefined)
        yield* all.await
        return statement.batches
      })
    )
    expect(batches.every((b) => b.length <= 3)).toBe(true)
    expect(batches.flat().sort()).toEqual([1, 2, 3, 4, 5, 6, 7])
  })
})
