/**
 * A route of the gateway: method, path, and a handler answering a Reply. Handlers run with the
 * authenticated Caller in context (see app.ts); `buildRouter` turns each Reply, typed failure or
 * defect into the envelope.
 */
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "@effect/platform"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Cause, Effect } from "effect"
import type { ApiError } from "../../schemas/errors.js"
import { Caller } from "./caller.js"
import { envelopeResponse, failureReply, internalErrorReply, type Reply } from "./envelope.js"

export type Handler<R> = Effect.Effect<Reply | HttpServerResponse.HttpServerResponse, ApiError, R>

export interface Route<R> {
  readonly method: HttpMethod
  readonly path: string
  readonly handler: Handler<R>
}

export const route = <R>(method: HttpMethod, path: string, handler: Handler<R>): Route<R> => ({ method, path, handler })

/** Kept for readability at call sites: which routes need no key is decided by path in app.ts. */
export const publicRoute = route

const isReply = (value: Reply | HttpServerResponse.HttpServerResponse): value is Reply =>
  !HttpServerResponse.isServerResponse(value)

const wrap = <R>(definition: Route<R>) =>
  Effect.gen(function* () {
    const caller = yield* Caller
    return yield* definition.handler.pipe(
      Effect.map((reply) => (isReply(reply) ? envelopeResponse(reply, caller.traceId) : reply)),
      Effect.catchAll((error) => Effect.succeed(envelopeResponse(failureReply(error), caller.traceId))),
      Effect.catchAllCause((cause) =>
        Effect.logError("request failed with a defect", { traceId: caller.traceId, path: definition.path }, Cause.pretty(cause)).pipe(
          Effect.as(envelopeResponse(internalErrorReply, caller.traceId))
        )
      )
    )
  })

/** The router of all routes; its handlers need Caller and HttpServerRequest besides their services. */
export const buildRouter = <R>(routes: ReadonlyArray<Route<R>>) => {
  let router: HttpRouter.HttpRouter<never, R | Caller | HttpServerRequest.HttpServerRequest> = HttpRouter.empty
  for (const definition of routes) {
    router = router.pipe(HttpRouter.route(definition.method)(definition.path as HttpRouter.PathInput, wrap(definition)))
  }
  return router
}
