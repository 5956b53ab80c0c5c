/**
 * Requests that wait for a transaction's outcome (create's default wait, `?waitMs=`): event-driven.
 * One dispatcher fiber reads the stage-event hub (this process's transitions, and other processes'
 * through the NOTIFY relay of stageEvents.ts) and wakes the requests waiting for that transaction
 * when it becomes terminal or reaches the approval gate. A waiting request costs no database work
 * while it waits; when it wakes it answers with the row the settling transition returned (this process's,
 * or the record columns another process's relayed event carried: no read), or makes one primary-key read
 * (its time is up, or the relayed event was too large to carry them).
 *
 * A transaction may settle before its waiter registers (a fast pipeline): the dispatcher remembers
 * recently settled ids, and registration checks that memory in the same tick (both run on this
 * thread, so no event falls between them).
 *
 * Waiting requests are bounded per API key and process (TX_MAX_WAITING_PER_KEY): an explicit
 * `?waitMs=` beyond the bound is refused (429) before anything is created; the implicit default wait
 * of a create simply answers at once instead (docs/decisions/pipeline.md).
 */
import { Chunk, Config, Effect, Queue } from "effect"
import { MAX_CREATE_WAIT_MS } from "../../schemas/api/transactions.js"
import { TooManyWaiting } from "../../schemas/errors.js"
import { superviseActor } from "../supervision/superviseActor.js"
import type { StageEvent } from "./stageEvents.js"
import { recordOfEvent, rowOfEvent, SETTLED_STATUSES, StageEvents } from "./stageEvents.js"
import { TransactionRepo } from "./transactionRepo.js"
import type { TransactionRecordRow, TransactionRow } from "./transactionRow.js"

/** Settled ids remembered for waiters that register late; far more than settle within a request's set-up. */
const RECENT_SETTLED = 20_000

export interface WaitSettings {
  /** How long a create waits without `?waitMs=` (0: answers at once, as before). */
  readonly defaultWaitMs: number
  /** Waiting requests one API key may hold in this process. */
  readonly maxWaitingPerKey: number
}

const waitSettings: Config.Config<WaitSettings> = Config.all({
  defaultWaitMs: Config.integer("TX_CREATE_WAIT_MS").pipe(
    Config.withDefault(10_000),
    Config.validate({ message: `TX_CREATE_WAIT_MS must be between 0 and ${MAX_CREATE_WAIT_MS}`, validation: (n) => n >= 0 && n <= MAX_CREATE_WAIT_MS })
  ),
  maxWaitingPerKey: Config.integer("TX_MAX_WAITING_PER_KEY").pipe(
    Config.withDefault(256),
    Config.validate({ message: "TX_MAX_WAITING_PER_KEY must be a positive integer", validation: (n) => n > 0 })
  )
})

export class TransactionWaits extends Effect.Service<TransactionWaits>()("TransactionWaits", {
  dependencies: [TransactionRepo.Default],
  scoped: Effect.gen(function* () {
    const settings = yield* waitSettings
    const events = yield* StageEvents
    const repo = yield* TransactionRepo

    /** Each waiter is called with the event that settled its transaction, or undefined when its time is up (a callback: one per request). */
    const waiters = new Map<string, Set<(event: StageEvent | undefined) => void>>()
    /** Insertion-ordered: the first key is the oldest. */
    const recentlySettled = new Set<string>()
    const waitingByKey = new Map<string, number>()
    let waiting = 0
    let showDepth: (depth: number) => Effect.Effect<void> = () => Effect.void

    /** Wakes the requests waiting for `txId` (with the event that settled it, or undefined: they read their row). */
    const wakeWaiters = (txId: string, event: StageEvent | undefined) => {
      const woken = waiters.get(txId)
      if (woken === undefined) return
      waiters.delete(txId)
      for (const wake of woken) wake(event)
    }

    const dispatch = (event: StageEvent) => {
      if (!SETTLED_STATUSES.has(event.status)) {
        // A retried transaction runs again: it is no longer settled.
        recentlySettled.delete(event.txId)
        return
      }
      recentlySettled.delete(event.txId)
      recentlySettled.add(event.txId)
      if (recentlySettled.size > RECENT_SETTLED) recentlySettled.delete(recentlySettled.values().next().value as string)
      wakeWaiters(event.txId, event)
    }

    /**
     * After a gap in stage events (a LISTEN connection replaced, or this dispatcher a whole buffer behind), each waited-for transaction is
     * read once (batched reads): those settled meanwhile wake their requests, which would otherwise wait for
     * their time limit.
     */
    const catchUp = Effect.suspend(() =>
      Effect.forEach(
        [...waiters.keys()],
        (txId) =>
          Effect.map(repo.findRecord(txId, null), (record) => {
            if (record !== undefined && SETTLED_STATUSES.has(record.status)) wakeWaiters(txId, undefined)
          }),
        // As many as one batched read takes (transactionRepo.ts).
        { concurrency: 64, discard: true }
      )
    ).pipe(Effect.catchAllCause((cause) => Effect.logWarning("waiting requests not read after a gap in stage events", cause)))

    yield* superviseActor(
      "transaction-waits",
      (handle) =>
        Effect.scoped(
          Effect.gen(function* () {
            showDepth = handle.setQueueDepth
            const queue = yield* events.subscribe
            const gaps = yield* events.subscribeGaps
            yield* Queue.take(gaps).pipe(Effect.zipRight(catchUp), Effect.forever, Effect.forkScoped)
            for (;;) {
              const batch = yield* Queue.takeBetween(queue, 1, 1024)
              Chunk.forEach(batch, dispatch)
            }
          })
        ),
      { kind: "gateway" }
    )

    /** Takes a waiting slot of `keyId`; false when the key already holds its maximum. */
    const reserve = (keyId: string) =>
      Effect.suspend(() => {
        const held = waitingByKey.get(keyId) ?? 0
        if (held >= settings.maxWaitingPerKey) return Effect.succeed(false)
        waitingByKey.set(keyId, held + 1)
        waiting += 1
        return Effect.as(showDepth(waiting), true)
      })

    const release = (keyId: string) =>
      Effect.suspend(() => {
        const held = (waitingByKey.get(keyId) ?? 1) - 1
        if (held <= 0) waitingByKey.delete(keyId)
        else waitingByKey.set(keyId, held)
        waiting -= 1
        return showDepth(waiting)
      })

    /**
     * Runs `use` with the wait a request gets: `requested` (`?waitMs=`) or the default. Over the key's
     * bound an explicit wait is refused with TooManyWaiting (before `use` runs), a default one is 0.
     */
    const withWait = <A, E, R>(keyId: string, requested: number | undefined, use: (waitMs: number) => Effect.Effect<A, E, R>) => {
      const waitMs = requested ?? settings.defaultWaitMs
      if (waitMs === 0) return use(0)
      return Effect.acquireUseRelease(
        reserve(keyId),
        (granted): Effect.Effect<A, E | TooManyWaiting, R> =>
          granted
            ? use(waitMs)
            : requested === undefined
              ? use(0)
              : Effect.fail(new TooManyWaiting({ limit: settings.maxWaitingPerKey })),
        (granted) => (granted ? release(keyId) : Effect.void)
      )
    }

    /**
     * Waits until the transaction settles or `waitMs` passes: "none" when there was nothing to wait for,
     * else the event that settled it (undefined: settled before the wait began, or the time was up).
     */
    const waitUntilSettled = (
      row: { readonly id: string; readonly status: string }, waitMs: number
    ): Effect.Effect<"none" | StageEvent | undefined> =>
      Effect.suspend((): Effect.Effect<"none" | StageEvent | undefined> => {
        if (waitMs <= 0 || SETTLED_STATUSES.has(row.status)) return Effect.succeed("none" as const)
        if (recentlySettled.has(row.id)) return Effect.succeed(undefined)
        return Effect.async<StageEvent | undefined>((resume) => {
          const registered = waiters.get(row.id) ?? new Set()
          waiters.set(row.id, registered)
          const leave = () => {
            clearTimeout(timer)
            registered.delete(wake)
            if (registered.size === 0 && waiters.get(row.id) === registered) waiters.delete(row.id)
          }
          const wake = (event: StageEvent | undefined) => {
            leave()
            resume(Effect.succeed(event))
          }
          registered.add(wake)
          // The bound is a plain timer ending the wait (Effect.timeout would race two fibers per request).
          const timer = setTimeout(() => wake(undefined), waitMs)
          // An interrupted request (its client went away) leaves at once.
          return Effect.sync(leave)
        })
      })

    /**
     * The record once settled (or as it is when `waitMs` passed): the row this process's transition
     * settled it with (carried by the waking event, stageEvents.ts), else one read of the record's columns.
     */
    const awaitSettled = <Row extends TransactionRecordRow>(row: Row, waitMs: number): Effect.Effect<Row | TransactionRecordRow> =>
      Effect.flatMap(waitUntilSettled(row, waitMs), (woken) => {
        if (woken === "none") return Effect.succeed(row)
        const settled = woken === undefined ? undefined : recordOfEvent(woken)
        return settled !== undefined ? Effect.succeed(settled) : Effect.map(repo.findRecord(row.id, null), (read) => read ?? row)
      })

    /** As awaitSettled, with the whole row (the sign route answers with the signed bytes). */
    const awaitSettledRow = (row: TransactionRow, waitMs: number): Effect.Effect<TransactionRow> =>
      Effect.flatMap(waitUntilSettled(row, waitMs), (woken) => {
        if (woken === "none") return Effect.succeed(row)
        const settled = woken === undefined ? undefined : rowOfEvent(woken)
        return settled !== undefined ? Effect.succeed(settled) : Effect.map(repo.find(row.id, null), (read) => read ?? row)
      })

    return { withWait, awaitSettled, awaitSettledRow, settings }
  })
}) {}
