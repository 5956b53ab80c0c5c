/**
 * The wallet engine's HTTP server (its own process, WALLET_ENGINE_PORT, default 3002): the only place
 * that holds key material. It answers two internal calls, each only with the shared internal token:
 * create a key for a new wallet id, and sign a transaction, which it checks itself in the database
 * (recorded at `signing`, with an allowing or approved decision, the wallet active, the message the
 * one recorded) rather than taking the caller's word. It answers public keys and signatures only.
 */
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { SqlClient } from "@effect/sql"
import bs58 from "bs58"
import { Effect, Layer, Option, Redacted, Schema } from "effect"
import * as http from "node:http"
import { Uuid } from "../../../schemas/common.js"
import { KeyBackend } from "../../../schemas/wallet.js"
import { AppConfig } from "../../config.js"
import { signingRefusal } from "../signingPermission.js"
import { KeyStore } from "../keyStore.js"
import { SigningFreezes } from "../signingFreezes.js"
import { freezeNotice } from "../../../schemas/freeze.js"
import { INTERNAL_TOKEN_HEADER, tokenChecker } from "./internalToken.js"
import { decodeRows, JsonObject } from "../../db/rowDecoding.js"

const CreateKeyBody = Schema.Struct({ walletId: Uuid })
const SignBody = Schema.Struct({ txId: Uuid, walletId: Uuid, message: Schema.String })

const SigningRow = Schema.Struct({
  status: Schema.String,
  message_base64: Schema.NullOr(Schema.String),
  policy_decision: Schema.NullOr(Schema.Struct({ decision: Schema.optional(Schema.String) })),
  approval: Schema.NullOr(JsonObject),
  wallet_id: Schema.String,
  tenant_id: Schema.String,
  agent_id: Schema.NullOr(Schema.String),
  key_backend: KeyBackend,
  wallet_status: Schema.String
})
type SigningRow = typeof SigningRow.Type

const WalletIdRow = Schema.Struct({ id: Schema.String })

const answer = (status: number, body: unknown) => HttpServerResponse.unsafeJson(body, { status })
const refuse = (status: number, error: string) => Effect.succeed(answer(status, { error }))

const badBody = () => answer(400, { error: "body: expected the fields of this call" })

const createKey = Effect.gen(function* () {
  const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(CreateKeyBody))
  if (Option.isNone(body)) return badBody()
  const sql = yield* SqlClient.SqlClient
  const existing = yield* sql`SELECT id FROM wallets WHERE id = ${body.value.walletId}`.pipe(decodeRows("wallets", WalletIdRow), Effect.orDie)
  // A key is made once per wallet id: never over the key of an existing wallet.
  if (existing.length > 0) return yield* refuse(409, "a wallet with this id exists")
  const created = yield* Effect.either((yield* KeyStore).createKey(body.value.walletId))
  if (created._tag === "Left") return yield* refuse(503, created.left.message)
  return answer(201, { publicKey: bs58.encode(created.right.publicKey), backend: created.right.backend, provider: created.right.provider })
})

const sign = Effect.gen(function* () {
  const body = yield* Effect.option(HttpServerRequest.schemaBodyJson(SignBody))
  if (Option.isNone(body)) return badBody()
  const { txId, walletId, message } = body.value
  const sql = yield* SqlClient.SqlClient
  const freezes = yield* SigningFreezes
  // Checked and signed in one SQL transaction holding the tenant's freeze lock (shared) until the signature
  // exists: a freeze committed before is seen, one issued meanwhile waits (signingFreezes.ts).
  return yield* sql.withTransaction(Effect.gen(function* () {
  const rows = yield* sql`
    SELECT t.status, t.message_base64, t.policy_decision, t.approval, t.wallet_id, t.tenant_id, t.agent_id, w.key_backend, w.status AS wallet_status
    FROM transactions t JOIN wallets w ON w.id = t.wallet_id WHERE t.id = ${txId}
  `.pipe(decodeRows("transactions", SigningRow))
  const row = rows[0]
  if (row === undefined) return yield* refuse(404, `transaction ${txId} does not exist`)
  if (row.wallet_id !== walletId) return yield* refuse(409, "the transaction belongs to another wallet")
  const freeze = (yield* freezes.guardSigning([{ tenantId: row.tenant_id, walletId: row.wallet_id, agentId: row.agent_id }])).get(0)
  if (freeze !== undefined) return answer(423, { error: freezeNotice(freeze), frozen: true })
  // The same checks as the signer actor's, on the row as recorded (signingPermission.ts).
  const refusal = signingRefusal(row)
  if (refusal !== undefined) return yield* refuse(409, refusal)
  if (row.message_base64 === null || row.message_base64 !== message) return yield* refuse(409, "the message is not the one recorded for the transaction")
  const signed = yield* Effect.either(
    (yield* KeyStore).sign({ txId, walletId: row.wallet_id, backend: row.key_backend, message: Buffer.from(row.message_base64, "base64") })
  )
  if (signed._tag === "Left") return yield* refuse(503, signed.left.message)
  return answer(200, { signature: Buffer.from(signed.right.signature).toString("base64"), signedAt: signed.right.signedAt.toISOString() })
  })).pipe(Effect.orDie)
})

/** The server layer: routes behind the internal-token check, on WALLET_ENGINE_HOST:WALLET_ENGINE_PORT. */
export const WalletEngineServerLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const config = yield* AppConfig
    const token = Option.getOrThrowWith(config.walletEngine.internalToken, () => new Error("WALLET_ENGINE_INTERNAL_TOKEN is required"))
    const authorized = tokenChecker(Redacted.value(token))
    const router = HttpRouter.empty.pipe(
      HttpRouter.get("/health", Effect.succeed(answer(200, { ok: true }))),
      HttpRouter.post("/internal/v1/keys", createKey),
      HttpRouter.post("/internal/v1/sign", sign)
    )
    const app = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (new URL(request.url, "http://localhost").pathname !== "/health" && !authorized(request.headers[INTERNAL_TOKEN_HEADER])) {
        return answer(401, { error: "the wallet engine answers the transaction engine only (internal token missing or wrong)" })
      }
      return yield* router
    }).pipe(Effect.catchAll(() => Effect.succeed(answer(404, { error: "no such call" }))))
    return HttpServer.serve(app).pipe(
      Layer.provideMerge(NodeHttpServer.layer(() => http.createServer(), { port: config.ports.walletEngine, host: config.walletEngine.host }))
    )
  })
)
