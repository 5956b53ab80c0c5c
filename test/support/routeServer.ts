/**
 * One component's routes served in process, without the gateway or the application: the router of
 * `buildRouter` on a free port (NodeHttpServer.layerTest, whose HttpClient calls it), every request made by
 * the caller the gateway would have authenticated (an operator's key of every scope unless told). The
 * routes' services come from the layer the test provides (Test layers). Provide it per test
 * (`Effect.provide`): with a file-wide `it.layer`, a file run after another in the same fork (isolate: false)
 * had its requests answered by the earlier file's router too.
 */
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as HttpServer from "@effect/platform/HttpServer"
import { NodeHttpServer } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { SCOPES } from "../../src/gateway/apiKeys.js"
import { Caller, type CallerInfo } from "../../src/gateway/caller.js"
import { buildRouter, type Route } from "../../src/gateway/route.js"

export const operator: CallerInfo = { keyId: "unit-test", tenant: "default", readTenant: "default", scopes: new Set(SCOPES), traceId: "unit-test" }

export const serveRoutes = <R>(routes: ReadonlyArray<Route<R>>, caller: CallerInfo = operator) =>
  HttpServer.serve(buildRouter(routes).pipe(Effect.provideService(Caller, caller))).pipe(Layer.provideMerge(NodeHttpServer.layerTest))

/** The answer of one request: its status and its envelope. */
export const call = (method: "GET" | "POST", path: string, body?: unknown) =>
  Effect.gen(function* () {
    const request = HttpClientRequest.make(method)(path)
    const response = yield* HttpClient.execute(body === undefined ? request : HttpClientRequest.bodyUnsafeJson(request, body))
    return { status: response.status, body: (yield* response.json) as { data: any; errorCode?: string; error?: string } }
  }).pipe(Effect.orDie)
