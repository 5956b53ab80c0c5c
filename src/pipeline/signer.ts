/**
 * The signer: the pipeline's one way to a signature, and the one fiber (the supervised actor `signer`)
 * that asks the wallet component to sign. It signs only a transaction recorded at `signing` whose
 * recorded decision allows it (allow, or require_approval that a human approved before the approval
 * expired), only the exact message bytes that were simulated, and only when the fee payer is the
 * wallet. Requests queue up (queue depth visible in the actor registry); the queued ones are read from
 * SQL together, then checked and signed one by one.
 */
import { SqlClient } from "@effect/sql"
import bs58 from "bs58"
import { Chunk, Data, Deferred, Effect, Exit, Queue, Schema } from "effect"
import { assembleTransaction, feePayerOf, signersOf } from "./wireTransaction.js"
import { signingRefusal } from "../wallet/signingPermission.js"
import { isOffChainMessage, SIGN_MESSAGE_TYPE } from "./signRequest.js"
import { typeFactsOf } from "../protocols/registry.js"
import { KeyStore } from "../wallet/keyStore.js"
import { sharedFreezeLockOf, SigningFreezes } from "../wallet/signingFreezes.js"
import { freezeNotice } from "../../schemas/freeze.js"
import { KeyBackend } from "../../schemas/wallet.js"
import { superviseActor } from "../supervision/superviseActor.js"
import { decodeRows, JsonObject } from "../db/rowDecoding.js"

/** Requests read in one SQL statement at most. */
const MAX_BATCH = 64

/** `frozen`: refused by an operator's freeze of the transaction's tenant, wallet or agent (the message names it). */
export class SignRefused extends Data.TaggedError("SignRefused")<{ readonly message: string; readonly frozen?: boolean }> {}

export interface SignedTransaction {
  readonly signature: string
  readonly signedTransaction: string
  /** When the key made the signature (under the freeze lock; recorded on the `transaction.signed` event). */
  readonly signedAt: string
}

interface SignRequest {
  readonly txId: string
  readonly reply: Deferred.Deferred<SignedTransaction, SignRefused>
}

const SigningRow = Schema.Struct({
  type: Schema.String,
  status: Schema.String,
  gasless: Schema.Boolean,
  message_base64: Schema.NullOr(Schema.String),
  extra_signatures: Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.String })),
  policy_decision: Schema.NullOr(Schema.Struct({ decision: Schema.optional(Schema.String) })),
  approval: Schema.NullOr(JsonObject),
  wallet_id: Schema.String,
  tenant_id: Schema.String,
  agent_id: Schema.NullOr(Schema.String),
  public_key: Schema.String,
  key_backend: KeyBackend,
  wallet_status: Schema.String
})
type SigningRow = typeof SigningRow.Type

/** A signing row with its transaction's id (a batch's read answers many). */
const SigningRowWithId = Schema.Struct({ ...SigningRow.fields, id: Schema.String })

export class Signer extends Effect.Service<Signer>()("Signer", {
  dependencies: [KeyStore.Default, SigningFreezes.Default],
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const keys = yield* KeyStore
    const freezes = yield* SigningFreezes
    const requests = yield* Queue.unbounded<SignRequest>()

    /**
     * One read for a whole batch of requests (the checks below stay per transaction). `lockTenants`: the same
     * statement takes each row's tenant's freeze lock, shared, in tenant order (signingFreezes.ts).
     */
    const readRows = (txIds: ReadonlyArray<string>, lockTenants: boolean) =>
      sql`
        SELECT t.id, t.type, t.status, t.gasless, t.message_base64, t.extra_signatures, t.policy_decision, t.approval, t.wallet_id,
          t.tenant_id, t.agent_id, w.public_key, w.key_backend, w.status AS wallet_status${lockTenants ? sql`, ${sharedFreezeLockOf(sql, "t.tenant_id")} AS locked` : sql``}
        FROM transactions t JOIN wallets w ON w.id = t.wallet_id WHERE t.id IN ${sql.in([...txIds])}
        ${lockTenants ? sql`ORDER BY t.tenant_id` : sql``}
      `.pipe(decodeRows("transactions", SigningRowWithId), Effect.map((rows) => new Map(rows.map((row) => [row.id, row]))), Effect.orDie)

    const signOne = (txId: string, row: SigningRow | undefined) =>
      Effect.gen(function* () {
        if (row === undefined) return yield* new SignRefused({ message: `transaction ${txId} does not exist` })
        const refusal = signingRefusal(row)
        if (refusal !== undefined || row.message_base64 === null) return yield* new SignRefused({ message: refusal ?? "no simulated message is recorded" })
        if (row.type === SIGN_MESSAGE_TYPE) return yield* signOffChainMessage(txId, row, row.message_base64)
        // The wallet pays its own fee, except where a relay (gasless) or an x402 facilitator does: then it signs as authority.
        const externalFeePayer = row.gasless || typeFactsOf(row.type)?.performedBy === "x402Payment"
        if (externalFeePayer ? !signersOf(row.message_base64).includes(row.public_key) : feePayerOf(row.message_base64) !== row.public_key) {
          return yield* new SignRefused({ message: externalFeePayer ? "the wallet is not a signer of the message" : "the message's fee payer is not the wallet" })
        }
        const signed = yield* keys
          .sign({ txId, walletId: row.wallet_id, backend: row.key_backend, message: Buffer.from(row.message_base64, "base64") })
          .pipe(Effect.mapError((error) => new SignRefused({ message: error.message, frozen: error.frozen })))
        const wire = assembleTransaction(row.message_base64, { ...(row.extra_signatures ?? {}), [row.public_key]: signed.signature })
        return { signature: bs58.encode(signed.signature), signedTransaction: wire.toString("base64"), signedAt: signed.signedAt.toISOString() }
      })

    /** POST /wallets/<id>/sign with a message: only domain-separated off-chain message bytes, never a transaction. */
    const signOffChainMessage = (txId: string, row: SigningRow, messageBase64: string) =>
      Effect.gen(function* () {
        const bytes = Buffer.from(messageBase64, "base64")
        if (!isOffChainMessage(bytes)) return yield* new SignRefused({ message: "the recorded message is not an off-chain message" })
        const signed = yield* keys.sign({ txId, walletId: row.wallet_id, backend: row.key_backend, message: bytes }).pipe(Effect.mapError((error) => new SignRefused({ message: error.message, frozen: error.frozen })))
        return { signature: bs58.encode(signed.signature), signedTransaction: "", signedAt: signed.signedAt.toISOString() }
      })

    /**
     * Reads the batch's rows and signs each one that may be signed. Signing here, the batch holds its tenants'
     * freeze locks (shared, taken by the read) in one SQL transaction until every signature exists, so a freeze
     * that commits meanwhile waits for it, and one committed before is seen by the check after the read
     * (signingFreezes.ts). With the wallet engine signing in its own process, the engine holds those locks
     * itself: the check here is only the early refusal.
     */
    const signBatch = (txIds: ReadonlyArray<string>) => {
      const signAll = Effect.gen(function* () {
        const rows = yield* readRows(txIds, !keys.remote)
        const subjects = txIds.map((txId) => {
          const row = rows.get(txId)
          return { tenantId: row?.tenant_id ?? "", walletId: row?.wallet_id ?? "", agentId: row?.agent_id ?? null }
        })
        const frozen = yield* (keys.remote ? freezes.covering(subjects) : freezes.checkSigning(subjects).pipe(Effect.orDie))
        const exits: Array<Exit.Exit<SignedTransaction, SignRefused>> = []
        for (const [index, txId] of txIds.entries()) {
          const freeze = frozen.get(index)
          exits.push(
            freeze !== undefined && rows.has(txId)
              ? Exit.fail(new SignRefused({ message: freezeNotice(freeze), frozen: true }))
              : yield* Effect.exit(signOne(txId, rows.get(txId)))
          )
        }
        return exits
      })
      return (keys.remote ? signAll : sql.withTransaction(signAll).pipe(Effect.orDie)).pipe(
        Effect.catchAllCause((cause) => Effect.succeed(txIds.map(() => Exit.failCause(cause))))
      )
    }

    yield* superviseActor(
      "signer",
      (handle) =>
        Effect.forever(
          Effect.gen(function* () {
            // Everything queued so far is one batch: one SQL read, then each request checked and signed in turn.
            const batch = yield* Queue.takeBetween(requests, 1, MAX_BATCH)
            yield* handle.setQueueDepth(yield* Queue.size(requests))
            const exits = yield* signBatch(Chunk.toReadonlyArray(batch).map((request) => request.txId))
            for (const [index, request] of Chunk.toReadonlyArray(batch).entries()) yield* Deferred.done(request.reply, exits[index])
          })
        ),
      { kind: "signer" }
    )

    /** Asks the signer actor to sign the transaction's recorded message. */
    const sign = (txId: string) =>
      Effect.gen(function* () {
        const reply = yield* Deferred.make<SignedTransaction, SignRefused>()
        yield* Queue.offer(requests, { txId, reply })
        return yield* Deferred.await(reply)
      })

    return { sign }
  })
}) {}

