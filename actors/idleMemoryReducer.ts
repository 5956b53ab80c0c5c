/**
 * The idle memory reducer: every window (2 s) it reads the event loop's utilisation; when the windows of
 * the last IDLE_MEMORY_REDUCE_AFTER_MS (30 s; 0 turns it off) averaged under 5%, it runs one
 * memory-reducing collection, and again only after load since (src/observability/idleMemory.ts).
 */
import { Effect, Layer } from "effect"
import { performance } from "node:perf_hooks"
import { AppConfig } from "../src/config.js"
import { afterWindow, collectForIdle, INITIAL_IDLE_STATE } from "../src/observability/idleMemory.js"
import { superviseActor } from "../src/supervision/superviseActor.js"

export const IDLE_MEMORY_ACTOR = "idle-memory-reducer"
const WINDOW_MS = 2_000

export const IdleMemoryReducerLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const afterMs = config.idleMemoryReduceAfterMs
    if (afterMs === 0) return
    const windowsNeeded = Math.max(1, Math.ceil(afterMs / WINDOW_MS))
    yield* superviseActor(
      IDLE_MEMORY_ACTOR,
      (handle) =>
        Effect.gen(function* () {
          let state = INITIAL_IDLE_STATE
          let last = performance.eventLoopUtilization()
          for (;;) {
            yield* handle.setStatus("idle")
            yield* Effect.sleep(`${WINDOW_MS} millis`)
            const now = performance.eventLoopUtilization()
            const next = afterWindow(state, performance.eventLoopUtilization(now, last).utilization, windowsNeeded)
            last = now
            state = next.state
            if (!next.collect) continue
            yield* handle.setStatus("running")
            const collected = yield* Effect.promise(collectForIdle)
            // The next window starts after the collection: its own pause must not count as the service being busy.
            last = performance.eventLoopUtilization()
            yield* Effect.logInfo("idle: unused heap given back").pipe(Effect.annotateLogs({ ...collected }))
          }
        }),
      { kind: "idle-memory-reducer" }
    )
  })
)
