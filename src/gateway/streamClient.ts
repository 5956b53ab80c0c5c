/**
 * One connected stage-stream client. Events come from the client's own subscription to the hub and
 * leave through `ws.send`, which only buffers: nothing here ever waits for the client. A client that
 * lets more than `maxBufferedBytes` pile up, or misses a pong between two heartbeats, is terminated. A client
 * whose key is revoked or expires meanwhile gets no further event and is closed (code 4401) at once.
 */
import { Deferred, Duration, Effect, Either, Exit, Queue, Schema } from "effect"
import { WebSocket } from "ws"
import type { StageEvent, StageEventFeed, StreamGap } from "./stageEventFeed.js"
import type { CallerInfo } from "./caller.js"
import { validationErrorFrom } from "./request.js"
import { applyMessage, describeSubscriptions, SubscriptionMessage, type Subscriptions, wants } from "./streamSubscriptions.js"

export interface StreamLimits {
  readonly heartbeatMs: number
  readonly maxBufferedBytes: number
}

const GAP_REASON =
  "events may have been missed (other processes' events while this process's LISTEN connection was being replaced, or more events than this connection's buffer at once): the transactions you named follow with their current state; read the wallets and agents you follow"

/** Events taken from the hub per wake-up, so a burst is sent without a fiber hop per event. */
const BATCH = 256

const decodeMessage = Schema.decodeUnknownEither(SubscriptionMessage, { errors: "all", onExcessProperty: "error" })

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return undefined
  }
}

/** Serves the client until its socket closes; terminates the socket when interrupted. */
export const serveClient = (
  ws: WebSocket,
  caller: CallerInfo,
  subscriptions: Subscriptions,
  events: Queue.Dequeue<StageEvent>,
  gaps: Queue.Dequeue<void>,
  currentEvents: StageEventFeed["Type"]["currentEvents"],
  limits: StreamLimits,
  /** Whether the key the client connected with still authenticates. */
  keyIsCurrent: () => boolean
) =>
  Effect.gen(function* () {
    const closed = yield* Deferred.make<void>()
    yield* Effect.addFinalizer(() => Effect.sync(() => ws.terminate()))
    ws.on("close", () => Deferred.unsafeDone(closed, Exit.void))
    if (ws.readyState !== WebSocket.OPEN) return

    /** Sends unless the client is too far behind, in which case it is dropped. */
    const send = (message: unknown): boolean => {
      if (ws.readyState !== WebSocket.OPEN) return false
      if (ws.bufferedAmount > limits.maxBufferedBytes) {
        ws.terminate()
        return false
      }
      ws.send(JSON.stringify(message))
      return true
    }

    ws.on("message", (data, isBinary) => {
      const parsed = isBinary ? undefined : parseJson(data.toString())
      const decoded = decodeMessage(parsed)
      if (Either.isLeft(decoded)) {
        send({ type: "error", error: parsed === undefined ? "message: malformed JSON" : validationErrorFrom(decoded.left).message })
        return
      }
      const refused = applyMessage(subscriptions, decoded.right)
      if (refused !== undefined) {
        send({ type: "error", error: refused })
        return
      }
      send({ type: "subscribed", subscriptions: describeSubscriptions(subscriptions) })
    })

    /** False (and the client closed) once its key no longer authenticates. */
    const authorized = (): boolean => {
      if (keyIsCurrent()) return true
      if (ws.readyState === WebSocket.OPEN) {
        ws.send(JSON.stringify({ type: "error", error: "the API key of this connection was revoked or expired" }))
        ws.close(4401, "API key revoked or expired")
      }
      return false
    }

    let answeredPing = true
    ws.on("pong", () => {
      answeredPing = true
    })
    const heartbeat = Effect.sync(() => {
      if (ws.readyState !== WebSocket.OPEN || !authorized()) return
      if (!answeredPing) {
        ws.terminate()
        return
      }
      answeredPing = false
      ws.ping()
      send({ type: "heartbeat", at: new Date().toISOString() })
    })

    // The transactions the live stream sent an event of while a catch-up read ran (below).
    let sentDuringCatchUp: Set<string> | undefined
    const deliver = Effect.flatMap(Queue.takeBetween(events, 1, BATCH), (batch) =>
      Effect.sync(() => {
        if (!authorized()) return
        for (const event of batch) {
          if (!wants(caller, subscriptions, event)) continue
          if (!send(event)) return
          sentDuringCatchUp?.add(event.txId)
        }
      })
    )

    // After a gap the client is told, and gets the current state of each transaction it names: one waiting for
    // an outcome (the SDK's iterator, `tx watch`) then sees it even if the settling event was lost. A transaction
    // whose live event went out while the read ran is left to the live stream: the read's state could be older.
    const catchUp = Effect.gen(function* () {
      const gap: StreamGap = { type: "gap", at: new Date().toISOString(), reason: GAP_REASON }
      if (!authorized() || !send(gap) || subscriptions.txIds.size === 0) return
      const sentMeanwhile = (sentDuringCatchUp = new Set())
      for (const event of yield* currentEvents([...subscriptions.txIds])) {
        if (sentMeanwhile.has(event.txId) || !wants(caller, subscriptions, event)) continue
        if (!send(event)) return
      }
    }).pipe(
      Effect.ensuring(Effect.sync(() => void (sentDuringCatchUp = undefined))),
      Effect.catchAllCause((cause) => Effect.logWarning("stage stream: transactions not read after a gap", cause))
    )

    send({ type: "subscribed", subscriptions: describeSubscriptions(subscriptions) })
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Effect.sleep(Duration.millis(limits.heartbeatMs)), heartbeat)))
    yield* Effect.forkScoped(Effect.forever(deliver))
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(Queue.take(gaps), catchUp)))
    yield* Deferred.await(closed)
  })
