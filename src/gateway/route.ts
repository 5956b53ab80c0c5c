/**
 * A route of the gateway: method, path, and a handler answering a Reply. Handlers run with the
 * authenticated Caller in context (see app.ts); `buildRouter` turns each Reply, typed failure or
 * defect into the envelope.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { HttpMethod } from "@effect/platform/HttpMethod"
import { Cause, Effect, Either } from "effect"
import type { Endpoint } from "../../schemas/api/endpoint.js"
import { type ApiError, Forbidden } from "../../schemas/errors.js"
import { type AnswerEncoder, answerEncoder } from "./answerEncoder.js"
import { actingAgent, Caller, type CallerInfo } from "./caller.js"
import { againOnConnectionLoss, isConnectionLoss } from "../db/connectionLoss.js"
import { databaseUnavailableReply, databaseUnavailableWriteReply, envelopeResponse, failureReply, internalErrorReply, type Reply } from "./envelope.js"
import { undeclaredInputCheck } from "./undeclaredInput.js"

export type Handler<R> = Effect.Effect<Reply | HttpServerResponse.HttpServerResponse, ApiError, R>

/**
 * Who may call a route, besides holding its scope (docs/decisions/access.md):
 * - `operator` (the default): a key that is not bound to an agent;
 * - `agent`: also an agent's key, which the handler narrows to its own agent's state;
 * - `deployment`: a deployment-wide operation: an operator's key that reads across tenants (tenant `*`,
 *   no x-tenant-id naming one).
 */
export type RouteAccess = "operator" | "agent" | "deployment"

export interface Route<R> {
  readonly method: HttpMethod
  readonly path: string
  readonly handler: Handler<R>
  readonly access: RouteAccess
  /** The declared contract (schemas/api/): the OpenAPI document shows an undeclared route with any JSON as data. */
  readonly endpoint?: Endpoint
  /** The declared success schema's encoder, compiled once with the route (answerEncoder.ts). */
  readonly encodeAnswer?: AnswerEncoder
  /** Refuses a query or body the contract does not declare (undeclaredInput.ts). */
  readonly checkUndeclaredInput?: Effect.Effect<void, ApiError, HttpServerRequest.HttpServerRequest>
}

/**
 * A route: either declared by its contract, `route(WalletsApi.get, handler)`, which names method, path
 * and schemas (docs/decisions/api-contract.md), or by method and path alone (not in the contract yet).
 */
export function route<R>(endpoint: Endpoint, handler: Handler<R>, access?: RouteAccess): Route<R>
export function route<R>(method: HttpMethod, path: string, handler: Handler<R>, access?: RouteAccess): Route<R>
export function route<R>(
  first: Endpoint | HttpMethod,
  second: string | Handler<R>,
  third?: Handler<R> | RouteAccess,
  fourth?: RouteAccess
): Route<R> {
  if (typeof first === "string") {
    return { method: first, path: second as string, handler: third as Handler<R>, access: fourth ?? "operator" }
  }
  const encodeAnswer = answerEncoder(first)
  const checkUndeclaredInput = undeclaredInputCheck(first)
  return {
    method: first.method,
    path: first.path,
    handler: second as Handler<R>,
    access: (third as RouteAccess | undefined) ?? "operator",
    endpoint: first,
    ...(encodeAnswer === undefined ? {} : { encodeAnswer }),
    ...(checkUndeclaredInput === undefined ? {} : { checkUndeclaredInput })
  }
}

/** The refusal of a caller the route's access does not admit, or undefined when it may call it. */
export const accessRefusal = (access: RouteAccess, caller: CallerInfo): Forbidden | undefined => {
  const agent = actingAgent(caller)
  if (agent !== null && access !== "agent") {
    return new Forbidden({ message: `Operator credential required: this key acts as agent ${agent} and may only execute and read that agent's state` })
  }
  if (access === "deployment" && caller.readTenant !== null) {
    return new Forbidden({
      message: "Operator credential required: a deployment-wide operation needs a key not bound to a tenant (tenant *), without x-tenant-id naming one"
    })
  }
  return undefined
}

/** Kept for readability at call sites: which routes need no key is decided by path in app.ts. */
export const publicRoute = route

const isReply = (value: Reply | HttpServerResponse.HttpServerResponse): value is Reply =>
  !HttpServerResponse.isServerResponse(value)

const wrap = <R>(definition: Route<R>) => {
  const warned = new Set<string>()
  const readOnly = definition.method === "GET" || definition.method === "HEAD"
  return Effect.gen(function* () {
    const caller = yield* Caller
    const refusal = accessRefusal(definition.access, caller)
    if (refusal !== undefined) return envelopeResponse(failureReply(refusal), caller.traceId)
    const encode = definition.encodeAnswer
    const checked = definition.checkUndeclaredInput === undefined ? definition.handler : Effect.zipRight(definition.checkUndeclaredInput, definition.handler)
    // A read that met a lost connection (PostgreSQL restarted, failed over, or ended it) runs again on a new one:
    // reads change nothing, so a cut is not the caller's problem. A write is not run again here (it may have
    // committed before the answer was lost); it answers 503.
    const handler = readOnly ? againOnConnectionLoss(checked) : checked
    return yield* handler.pipe(
      Effect.flatMap((reply) => {
        if (!isReply(reply)) return Effect.succeed(reply)
        if (encode === undefined) return Effect.succeed(envelopeResponse(reply, caller.traceId, reply.headers))
        const encoded = encode(reply)
        if (Either.isRight(encoded)) {
          const response = envelopeResponse(encoded.right.reply, caller.traceId, reply.headers)
          const { undeclared } = encoded.right
          if (undeclared.length === 0 || warned.has(undeclared.join())) return Effect.succeed(response)
          // Dropped from the answer; said once per route and field list, so a drift is seen without flooding the log.
          warned.add(undeclared.join())
          return Effect.logWarning("answer fields not in the contract were dropped", {
            traceId: caller.traceId,
            route: `${definition.method} ${definition.path}`,
            fields: undeclared
          }).pipe(Effect.as(response))
        }
        // The handler answered what its contract does not describe: a bug, so fail closed.
        return Effect.logError("answer does not match its declared schema", {
          traceId: caller.traceId,
          route: `${definition.method} ${definition.path}`,
          issues: encoded.left.issues
        }).pipe(Effect.as(envelopeResponse(internalErrorReply, caller.traceId)))
      }),
      Effect.catchAll((error) => Effect.succeed(envelopeResponse(failureReply(error), caller.traceId))),
      Effect.catchAllCause((cause) => {
        const context = { traceId: caller.traceId, path: definition.path }
        // The database away (a restart, a failover): the caller may retry; no defect of ours to log as one.
        if (isConnectionLoss(cause)) {
          const reply = readOnly ? databaseUnavailableReply : databaseUnavailableWriteReply
          return Effect.logWarning("request failed: database connection lost", context).pipe(
            Effect.as(envelopeResponse(reply, caller.traceId, reply.headers))
          )
        }
        return Effect.logError("request failed with a defect", context, Cause.pretty(cause)).pipe(
          Effect.as(envelopeResponse(internalErrorReply, caller.traceId))
        )
      })
    )
  })
}

/** The router of all routes; its handlers need Caller and HttpServerRequest besides their services. */
export const buildRouter = <R>(routes: ReadonlyArray<Route<R>>) => {
  let router: HttpRouter.HttpRouter<never, R | Caller | HttpServerRequest.HttpServerRequest> = HttpRouter.empty
  for (const definition of routes) {
    router = router.pipe(HttpRouter.route(definition.method)(definition.path as HttpRouter.PathInput, wrap(definition)))
  }
  return router
}
