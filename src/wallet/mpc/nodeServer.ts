/**
 * The HTTP server of one mpc node in its own process: POST /internal/v1/mpc/<operation> with
 * {"args": [...]} (nodeWire's JSON form) answers {"result": ...}. Every call but GET /health needs
 * the shared internal token (compared in constant time, as the wallet engine's); without it, 401.
 * The node's own calls run one at a time (the node keeps DKG and nonce state between them).
 */
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { Effect, Layer } from "effect"
import * as http from "node:http"
import { INTERNAL_TOKEN_HEADER, tokenChecker } from "../engine/internalToken.js"
import { localNodeApi, MPC_NODE_OPERATIONS, type MpcNodeOperation } from "./nodeApi.js"
import type { MpcNode } from "./mpcNode.js"
import { fromWire, toWire } from "./nodeWire.js"

const PREFIX = "/internal/v1/mpc/"

const answer = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })

export interface MpcNodeServerOptions {
  readonly node: MpcNode
  readonly token: string
  readonly host: string
  readonly port: number
}

export const mpcNodeServerLayer = (options: MpcNodeServerOptions) => {
  const authorized = tokenChecker(options.token)
  const api = localNodeApi(options.node)
  const serial = Effect.unsafeMakeSemaphore(1)

  const app = Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    const pathname = new URL(request.url, "http://localhost").pathname
    if (request.method === "GET" && pathname === "/health") return answer(200, { ok: true, node: options.node.index })
    if (!authorized(request.headers[INTERNAL_TOKEN_HEADER])) {
      return answer(401, { error: "an mpc node answers the coordinator only (internal token missing or wrong)" })
    }
    const operation = pathname.slice(PREFIX.length) as MpcNodeOperation
    if (request.method !== "POST" || !pathname.startsWith(PREFIX) || !MPC_NODE_OPERATIONS.includes(operation)) {
      return answer(404, { error: "no such call" })
    }
    const body = yield* Effect.either(request.json)
    const args = body._tag === "Right" && body.right !== null && typeof body.right === "object" ? (body.right as { args?: unknown }).args : undefined
    if (!Array.isArray(args)) return answer(400, { error: "args: expected a JSON array of the operation's arguments" })
    const result = yield* Effect.tryPromise(() => (api[operation] as (...a: Array<unknown>) => Promise<unknown>)(...(fromWire(args) as Array<unknown>))).pipe(
      Effect.either,
      serial.withPermits(1)
    )
    if (result._tag === "Left") {
      const cause = result.left.error
      return answer(422, { error: `${operation}: ${cause instanceof Error ? cause.message : String(cause)}` })
    }
    return answer(200, { result: toWire(result.right) })
  }).pipe(Effect.catchAllCause(() => Effect.succeed(answer(500, { error: "the mpc node could not answer this call" }))))

  return HttpServer.serve(app).pipe(Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: options.port, host: options.host })))
}
