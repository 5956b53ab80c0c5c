/**
 * The stage stream: a WebSocket at GET /api/v1/stream on the gateway's port (issue #3 item 9).
 * Authenticated like every route (header, or query for browsers), at most STREAM_MAX_CONNECTIONS_PER_KEY
 * open connections per key (the next upgrade gets the 429 envelope), tenant-filtered (an agent's key sees
 * only its agent's events), subscribable by
 * txId / walletId / agentId, one message per stage transition in order, with heartbeats. Each client
 * has its own subscription to the StageEvents hub (through StageEventFeed) (a sliding buffer), so the pipeline never waits.
 *
 * The platform's server registers an `upgrade` handler that would answer every upgrade with the HTTP
 * app (a 404 here); this layer is built after the gateway and takes the `upgrade` event over: the
 * stream path is served with `ws`, any other upgrade is refused by closing the socket.
 * Runs as the supervised actor `stage-stream`, whose queue depth is the number of connected clients.
 */
import { Config, Deferred, Effect, FiberSet, Layer } from "effect"
import { randomUUID } from "node:crypto"
import type * as http from "node:http"
import type { Duplex } from "node:stream"
import { type WebSocket, WebSocketServer } from "ws"
import { type ActorHandle } from "../supervision/actorRegistry.js"
import { superviseActor } from "../supervision/superviseActor.js"
import { TooManyStreamConnections } from "../../schemas/errors.js"
import { authenticate } from "./authenticate.js"
import { GatewayAuth } from "./gatewayAuth.js"
import { scopeForPath } from "./routeScopes.js"
import { GatewayNodeServer, refusalHeaders } from "./server.js"
import { StageEventFeed } from "./stageEventFeed.js"
import { serveClient, type StreamLimits } from "./streamClient.js"
import { subscriptionsFromQuery } from "./streamSubscriptions.js"
import { refuseUpgrade, streamCredentials } from "./streamUpgrade.js"

export const STREAM_PATH = "/api/v1/stream"

/** Client messages are small JSON objects; anything larger is a protocol error. */
const MAX_CLIENT_MESSAGE_BYTES = 16 * 1024

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.withDefault(fallback),
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n > 0 })
  )

/** STREAM_HEARTBEAT_MS (15 s), STREAM_MAX_BUFFERED_BYTES (1 MiB), STREAM_MAX_CONNECTIONS_PER_KEY (10). */
const streamLimits: Config.Config<StreamLimits & { readonly connectionsPerKey: number }> = Config.all({
  heartbeatMs: positive("STREAM_HEARTBEAT_MS", 15_000),
  maxBufferedBytes: positive("STREAM_MAX_BUFFERED_BYTES", 1024 * 1024),
  connectionsPerKey: positive("STREAM_MAX_CONNECTIONS_PER_KEY", 10)
})

/** Completes the WebSocket handshake; fails when the socket closes first (a bad handshake). */
const accept = (wss: WebSocketServer, request: http.IncomingMessage, socket: Duplex, head: Buffer) =>
  Effect.async<WebSocket, "HandshakeFailed">((resume) => {
    const onClose = () => resume(Effect.fail("HandshakeFailed" as const))
    socket.once("close", onClose)
    wss.handleUpgrade(request, socket, head, (ws) => {
      socket.off("close", onClose)
      // An error on a client's socket (a reset, a bad frame) must never crash the process.
      ws.on("error", () => ws.terminate())
      resume(Effect.succeed(ws))
    })
  })

const runStream = (handle: ActorHandle, limits: Config.Config.Success<typeof streamLimits>, ready: Deferred.Deferred<void>) =>
  Effect.gen(function* () {
    const nodeServer = yield* GatewayNodeServer
    const { settings } = yield* GatewayAuth
    const events = yield* StageEventFeed
    const requiredScope = scopeForPath(STREAM_PATH)
    if (requiredScope === undefined) return yield* Effect.dieMessage(`${STREAM_PATH} has no scope in routeScopes.ts`)

    const wss = yield* Effect.acquireRelease(
      Effect.sync(() => new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE_BYTES })),
      (server) =>
        Effect.sync(() => {
          for (const client of server.clients) client.terminate()
          server.close()
        })
    )
    const runFork = yield* FiberSet.makeRuntime<never, void, never>()
    let connected = 0
    const countClient = (delta: number) => Effect.suspend(() => handle.setQueueDepth((connected += delta)))
    // Open connections per key: taken and given back synchronously, so racing upgrades cannot overshoot.
    const perKey = new Map<string, number>()
    const takeSlot = (keyId: string) =>
      Effect.sync(() => {
        const open = perKey.get(keyId) ?? 0
        if (open >= limits.connectionsPerKey) return false
        perKey.set(keyId, open + 1)
        return true
      })
    const giveSlot = (keyId: string) =>
      Effect.sync(() => {
        const open = (perKey.get(keyId) ?? 1) - 1
        if (open <= 0) perKey.delete(keyId)
        else perKey.set(keyId, open)
      })

    const serveUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) =>
      Effect.gen(function* () {
        const url = new URL(request.url ?? "/", "http://localhost")
        if (url.pathname !== STREAM_PATH) return socket.destroy()
        const traceId = randomUUID()
        const credentials = streamCredentials(request, url.searchParams)
        const auth = yield* Effect.either(authenticate(settings, credentials, requiredScope, traceId, request.socket.remoteAddress))
        if (auth._tag === "Left") return refuseUpgrade(socket, auth.left, traceId, refusalHeaders(auth.left))
        const subscriptions = yield* Effect.either(subscriptionsFromQuery(url.searchParams))
        if (subscriptions._tag === "Left") return refuseUpgrade(socket, subscriptions.left, traceId)

        const keyId = auth.right.caller.keyId
        yield* Effect.scoped(
          Effect.gen(function* () {
            const admitted = yield* Effect.acquireRelease(takeSlot(keyId), (taken) => (taken ? giveSlot(keyId) : Effect.void))
            if (!admitted) return refuseUpgrade(socket, new TooManyStreamConnections({ limit: limits.connectionsPerKey }), traceId)
            // Subscribe before the handshake completes: nothing published after the client sees `open` is missed.
            const queue = yield* events.subscribe
            const gaps = yield* events.subscribeGaps
            const ws = yield* accept(wss, request, socket, head)
            yield* Effect.acquireRelease(countClient(1), () => countClient(-1))
            const entry = auth.right.entry
            const keyIsCurrent = () => entry === null || !entry.issued || settings.keyRing.isCurrent(entry.keyId, Date.now())
            yield* serveClient(ws, auth.right.caller, subscriptions.right, queue, gaps, events.currentEvents, limits, keyIsCurrent)
          })
        )
      }).pipe(
        Effect.catchAll(() => Effect.sync(() => socket.destroy())),
        Effect.catchAllDefect((defect) => Effect.zipRight(Effect.sync(() => socket.destroy()), Effect.logWarning("stage stream client failed", defect)))
      )

    const onUpgrade = (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
      // Before anything else: a reset during the handshake must not crash the process.
      socket.on("error", () => socket.destroy())
      runFork(serveUpgrade(request, socket, head))
    }
    yield* Effect.acquireRelease(
      Effect.sync(() => {
        nodeServer.removeAllListeners("upgrade")
        nodeServer.on("upgrade", onUpgrade)
      }),
      () => Effect.sync(() => void nodeServer.off("upgrade", onUpgrade))
    )
    yield* Deferred.succeed(ready, undefined)
    return yield* Effect.never
  }).pipe(Effect.scoped)

/** The stream as a layer; build it after the gateway server (see app.ts). */
export const StageStreamLive = Layer.scopedDiscard(
  Effect.gen(function* () {
    const limits = yield* streamLimits
    const ready = yield* Deferred.make<void>()
    yield* superviseActor("stage-stream", (handle) => runStream(handle, limits, ready), { kind: "gateway" })
    // Start-up completes only once upgrades are served, so a client connecting right away is not refused.
    yield* Deferred.await(ready)
  })
).pipe(Layer.provide(GatewayAuth.Default))
