/**
 * The actor registry: every long-lived fiber of the process (pipeline workers, signer, scheduler,
 * agent actors, RPC prober, approval expirer, supervisor) registers here, and operators read it over
 * HTTP (GET /api/v1/runtime/actors). State is per process by nature: it describes this process's fibers.
 * It lives in src/ because components supervise fibers of their own too (the stage stream, key usage
 * flushes, MPC nodes) and read it (runtime routes, metrics), while actors/ only looks down.
 */
import { Effect } from "effect"

export type ActorStatus = "starting" | "running" | "idle" | "restarting" | "stopped" | "failed"

export interface ActorSnapshot {
  readonly name: string
  readonly kind: string
  readonly fiberId: string | null
  readonly status: ActorStatus
  readonly startedAt: string
  readonly restarts: number
  readonly lastError: string | null
  readonly lastErrorAt: string | null
  readonly queueDepth: number
}

export interface ActorHandle {
  readonly name: string
  readonly setStatus: (status: ActorStatus) => Effect.Effect<void>
  readonly setFiber: (fiberId: string) => Effect.Effect<void>
  readonly setQueueDepth: (depth: number) => Effect.Effect<void>
  readonly recordFailure: (error: string) => Effect.Effect<void>
  readonly recordRestart: () => Effect.Effect<void>
  readonly remove: () => Effect.Effect<void>
}

type MutableSnapshot = { -readonly [K in keyof ActorSnapshot]: ActorSnapshot[K] }

export class ActorRegistry extends Effect.Service<ActorRegistry>()("ActorRegistry", {
  sync: () => {
    const actors = new Map<string, MutableSnapshot>()

    const register = (name: string, kind: string) =>
      Effect.sync((): ActorHandle => {
        const entry: MutableSnapshot = {
          name,
          kind,
          fiberId: null,
          status: "starting",
          startedAt: new Date().toISOString(),
          restarts: 0,
          lastError: null,
          lastErrorAt: null,
          queueDepth: 0
        }
        actors.set(name, entry)
        return {
          name,
          setStatus: (status) => Effect.sync(() => void (entry.status = status)),
          setFiber: (fiberId) => Effect.sync(() => void (entry.fiberId = fiberId)),
          setQueueDepth: (depth) => Effect.sync(() => void (entry.queueDepth = depth)),
          recordFailure: (error) =>
            Effect.sync(() => {
              entry.lastError = error
              entry.lastErrorAt = new Date().toISOString()
            }),
          recordRestart: () =>
            Effect.sync(() => {
              entry.restarts += 1
              entry.status = "restarting"
            }),
          remove: () => Effect.sync(() => void (actors.get(name) === entry && actors.delete(name)))
        }
      })

    const list = Effect.sync(() => [...actors.values()].map((a): ActorSnapshot => ({ ...a })).sort((a, b) => a.name.localeCompare(b.name)))
    const get = (name: string) => Effect.sync(() => {
      const entry = actors.get(name)
      return entry === undefined ? undefined : ({ ...entry } as ActorSnapshot)
    })

    return { register, list, get }
  }
}) {}
