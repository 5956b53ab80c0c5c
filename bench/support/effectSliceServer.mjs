/**
 * A create-shaped request served by the copy of Effect whose packages live under EFFECT_DIR (bench:runtime's
 * slice): POST JSON -> Schema decode -> INSERT ... RETURNING on PostgreSQL (DATABASE_URL) -> row decode ->
 * Schema-encoded JSON answer, no span per request (as the gateway). GET /cpu answers the process's CPU time.
 * JavaScript, not TypeScript: the same file runs against Effect 3 (@effect/platform, @effect/sql) and Effect 4
 * (effect/http, effect/sql), whose types differ; the few spellings that differ are picked below.
 */
import { createRequire } from "node:module"
import { createServer } from "node:http"
import path from "node:path"
import { pathToFileURL } from "node:url"

const from = createRequire(path.join(path.resolve(process.env.EFFECT_DIR), "noop.js"))
const load = (name) => import(pathToFileURL(from.resolve(name)).href)

const { Effect, Layer, Redacted, Schema } = await load("effect")
const v4 = Schema.Literals !== undefined
const http = v4 ? await load("effect/http") : await load("@effect/platform")
const { SqlClient } = v4 ? await load("effect/sql") : await load("@effect/sql")
const { NodeHttpServer, NodeRuntime } = await load("@effect/platform-node")
const { PgClient } = await load("@effect/sql-pg")
const { HttpMiddleware, HttpServer, HttpServerRequest, HttpServerResponse } = http

const literals = (...values) => (v4 ? Schema.Literals(values) : Schema.Literal(...values))
const Body = Schema.Struct({ walletId: Schema.String, amount: Schema.String, destination: Schema.String, memo: Schema.optional(Schema.String) })
const Row = Schema.Struct({
  id: Schema.Number, wallet_id: Schema.String, amount: Schema.String, destination: Schema.String,
  status: literals("pending", "done"), created_at: v4 ? Schema.Date : Schema.DateFromSelf
})
const Answer = Schema.Struct({
  status: Schema.Literal("success"),
  data: Schema.Struct({ id: Schema.Number, walletId: Schema.String, amount: Schema.String, status: Schema.String, createdAt: Schema.String })
})
const decodeRow = v4 ? Schema.decodeUnknownEffect(Row) : Schema.decodeUnknown(Row)
const encodeAnswer = v4 ? Schema.encodeEffect(Answer) : Schema.encode(Answer)
const catchAll = v4 ? Effect.catch : Effect.catchAll

const app = catchAll(
  Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.url === "/cpu") {
      const used = process.cpuUsage()
      return yield* HttpServerResponse.json({ micros: used.user + used.system })
    }
    const body = yield* HttpServerRequest.schemaBodyJson(Body)
    const rows = yield* sql`INSERT INTO slice_requests (wallet_id, amount, destination) VALUES (${body.walletId}, ${body.amount}, ${body.destination}) RETURNING *`
    const row = yield* decodeRow(rows[0])
    const answer = yield* encodeAnswer({
      status: "success",
      data: { id: row.id, walletId: row.wallet_id, amount: row.amount, status: row.status, createdAt: row.created_at.toISOString() }
    })
    return yield* HttpServerResponse.json(answer)
  }),
  (error) => HttpServerResponse.json({ status: "failure", error: String(error) }, { status: 400 })
)

const noRequestSpans = v4 ? Layer.provide(Layer.succeed(HttpMiddleware.TracerDisabledWhen, () => true)) : HttpMiddleware.withTracerDisabledWhen(() => true)
const server = HttpServer.serve(app).pipe(
  noRequestSpans,
  Layer.provide(NodeHttpServer.layer(() => createServer(), { port: Number(process.env.PORT) })),
  Layer.provide(PgClient.layer({ url: Redacted.make(process.env.DATABASE_URL), maxConnections: 8 }))
)
NodeRuntime.runMain(Layer.launch(server))
