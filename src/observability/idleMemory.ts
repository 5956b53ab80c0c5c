/**
 * Giving memory back when the service is idle (issue 35). V8 keeps its young generation at the largest
 * size it grew to (up to two semi-spaces of 16 to 128 MiB, grown during start and under load) and Node runs no
 * idle-time collection, so an idle service held 30-70 MiB it had no use for. The collection a debugger's
 * "collect garbage" button asks for (the inspector's HeapProfiler.collectGarbage) also shrinks the young
 * generation, where a forced `gc()` leaves it at its size (both measured). It pauses the event loop for tens
 * of milliseconds, so it runs only after the loop has been idle for a while, once per idle period
 * (actors/idleMemoryReducer.ts).
 */
import { Session } from "node:inspector/promises"

/** What the reducer remembers between windows. */
export interface IdleState {
  /** The event loop's utilisation in the latest windows, oldest first (at most the windows needed). */
  readonly recent: ReadonlyArray<number>
  /** Busy since the last collection (or since start): the next idle period may collect again. */
  readonly armed: boolean
}

export const INITIAL_IDLE_STATE: IdleState = { recent: [], armed: true }

/** A period whose windows were busy less than this share of the time on average is idle. */
export const IDLE_UTILIZATION = 0.05

/**
 * A window at least this busy is load, which arms the next collection. Lower, a periodic background task
 * (a flush, a major collection) would arm it again and again, and an idle service would collect every period.
 */
export const BUSY_UTILIZATION = 0.25

/**
 * The state after a window with event-loop utilisation `utilization`, and whether to collect now: when the
 * last `windowsNeeded` windows were idle on average (one busier window, a background task's, does not
 * spoil a period) and the service has been busy since the last collection.
 */
export const afterWindow = (state: IdleState, utilization: number, windowsNeeded: number): { readonly state: IdleState; readonly collect: boolean } => {
  const recent = [...state.recent, utilization].slice(-windowsNeeded)
  const armed = state.armed || utilization >= BUSY_UTILIZATION
  const mean = recent.reduce((sum, value) => sum + value, 0) / recent.length
  if (armed && recent.length === windowsNeeded && mean < IDLE_UTILIZATION) return { state: { recent: [], armed: false }, collect: true }
  return { state: { recent, armed }, collect: false }
}

/** Resident memory before and after one memory-reducing collection, and how long the pause took. */
export interface Collected {
  readonly residentBeforeMiB: number
  readonly residentAfterMiB: number
  readonly pauseMs: number
}

const residentMiB = () => Math.round(process.memoryUsage.rss() / (1024 * 1024))

/**
 * Runs one memory-reducing collection (an in-process inspector session: no port is opened). The session is
 * closed after its answer, not inside the answer's callback: closed there, it kept the process alive.
 */
export const collectForIdle = async (): Promise<Collected> => {
  const residentBeforeMiB = residentMiB()
  const session = new Session()
  session.connect()
  try {
    const started = performance.now()
    await session.post("HeapProfiler.collectGarbage")
    return { residentBeforeMiB, residentAfterMiB: residentMiB(), pauseMs: Math.round(performance.now() - started) }
  } finally {
    session.disconnect()
  }
}
