/**
 * The gateway's HTTP server. Every request gets a trace id and is authenticated by its path's scope
 * BEFORE routing (so an unknown path under a scoped prefix still needs a key), then routed; unknown
 * routes and wrong methods answer the 404 envelope. The node server is exposed so the stage stream can
 * share the port (WebSocket upgrade).
 */
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Context, Effect, Layer, Option } from "effect"
import { randomUUID } from "node:crypto"
import * as http from "node:http"
import { RouteNotFound } from "../../schemas/errors.js"
import { AppConfig } from "../config.js"
import { type AuthError, authenticate } from "./authenticate.js"
import { Caller, type CallerInfo } from "./caller.js"
import { envelopeResponse, failureReply } from "./envelope.js"
import { GatewayAuth } from "./gatewayAuth.js"
import { isConsolePath } from "./consoleHttp.js"
import { OPENAPI_PATH } from "./openApiHttp.js"
import { buildRouter, type Route } from "./route.js"
import { scopeForPath } from "./routeScopes.js"
import { presentedKey } from "./presentedKey.js"

/** The node server under the gateway, for upgrade handlers (the stage stream). */
export class GatewayNodeServer extends Context.Tag("GatewayNodeServer")<GatewayNodeServer, http.Server>() {}

/** The union of the services the routes need. */
export type RoutesContext<Routes extends ReadonlyArray<Route<unknown>>> = Routes[number] extends Route<infer R> ? R : never

const rateHeaders = (rate: { limit: number; remaining: number; resetUnixSeconds: number }): Record<string, string> => ({
  "x-ratelimit-limit": String(rate.limit),
  "x-ratelimit-remaining": String(rate.remaining),
  "x-ratelimit-reset": String(rate.resetUnixSeconds)
})

/** Headers of a refused authentication: the rate limit's, and when to come back after a 429. */
export const refusalHeaders = (error: AuthError): Record<string, string> => {
  if (error._tag !== "RateLimited" && error._tag !== "TooManyAuthFailures") return {}
  const retryAfter = String(Math.max(1, error.resetUnixSeconds - Math.floor(Date.now() / 1000)))
  return error._tag === "RateLimited"
    ? { ...rateHeaders({ limit: error.limit, remaining: 0, resetUnixSeconds: error.resetUnixSeconds }), "retry-after": retryAfter }
    : { "retry-after": retryAfter }
}

const PUBLIC_PATHS = new Set(["/health", OPENAPI_PATH])

/** Paths served without a key: health, the OpenAPI document, and the console's static page (its data needs the operator's key). */
const isPublicPath = (path: string) => PUBLIC_PATHS.has(path) || isConsolePath(path)

/** MCP clients and Prometheus send `Authorization: Bearer <key>`: on /mcp and /metrics it counts as the x-api-key. */
const withBearerKey = (headers: Readonly<Record<string, string | undefined>>) => {
  const key = presentedKey(headers)
  return key === undefined ? headers : { ...headers, "x-api-key": key }
}

export const gatewayApp = <Routes extends ReadonlyArray<Route<unknown>>>(routes: Routes) =>
  Effect.gen(function* () {
    const auth = yield* GatewayAuth
    const router = buildRouter(routes as ReadonlyArray<Route<RoutesContext<Routes>>>)
    return Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const traceId = randomUUID()
      const path = new URL(request.url, "http://localhost").pathname
      // Built only when needed: an error instance captures a stack trace (measured at 1% of CPU per request).
      const notFound = () => envelopeResponse(failureReply(new RouteNotFound({ method: request.method, path })), traceId)
      const scope = scopeForPath(path)
      let caller: CallerInfo = { keyId: "anonymous", tenant: "default", readTenant: "default", scopes: new Set(), traceId }
      let headers: Record<string, string> = {}
      if (!isPublicPath(path)) {
        if (scope === undefined) return notFound()
        const address = Option.getOrUndefined(request.remoteAddress)
        const presented = scope === "mcp" || path === "/metrics" ? withBearerKey(request.headers) : request.headers
        const outcome = yield* Effect.either(authenticate(auth.settings, presented, scope, traceId, address))
        if (outcome._tag === "Left") return envelopeResponse(failureReply(outcome.left), traceId, refusalHeaders(outcome.left))
        caller = outcome.right.caller
        if (outcome.right.rate !== null) headers = rateHeaders(outcome.right.rate)
      }
      const response = yield* router.pipe(
        Effect.catchTag("RouteNotFound", () => Effect.sync(notFound)),
        Effect.provideService(Caller, caller)
      )
      return HttpServerResponse.setHeaders(response, headers)
    })
  })

/** One node server per build of the layer (tests start several services in one process). */
const NodeServerLive = Layer.sync(GatewayNodeServer, () => {
  const nodeServer = http.createServer()
  // A client that resets its connection must never crash the process.
  nodeServer.on("clientError", (_error, socket) => socket.destroy())
  return nodeServer
})

/** Serves the routes on API_GATEWAY_PORT (0 picks a free port, for tests). */
export const gatewayServerLayer = <Routes extends ReadonlyArray<Route<unknown>>>(routes: Routes) => {
  // No span per request: nothing exports spans, and the platform's tracer middleware parses the URL and
  // copies every header into one for each request.
  const serve = Layer.unwrapEffect(Effect.map(gatewayApp(routes), (app) => HttpServer.serve(app))).pipe(
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provide(GatewayAuth.Default)
  )
  const listen = Layer.unwrapEffect(
    Effect.gen(function* () {
      const config = yield* AppConfig
      const nodeServer = yield* GatewayNodeServer
      return NodeHttpServer.layer(() => nodeServer, { port: config.ports.gateway, host: config.gateway.host })
    })
  )
  return serve.pipe(Layer.provideMerge(listen), Layer.provideMerge(NodeServerLive))
}
