/**
 * The x402_payments table (its one owner): a payment is `prepared` when built, `sent` from the moment
 * its signed bytes may have left the service (written before the request), then `settled` (with the
 * settlement signature and the resource's answer) or `refused`.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows, JsonObject } from "../../db/rowDecoding.js"

const X402PaymentStatus = Schema.Literal("prepared", "sent", "settled", "refused")
export type X402PaymentStatus = typeof X402PaymentStatus.Type

export const X402PaymentRow = Schema.Struct({
  tx_id: Schema.String,
  url: Schema.String,
  x402_version: Schema.Number,
  requirement: JsonObject,
  payload: JsonObject,
  status: X402PaymentStatus,
  settlement_signature: Schema.NullOr(Schema.String),
  response: Schema.NullOr(JsonObject)
})
export type X402PaymentRow = typeof X402PaymentRow.Type

export class X402PaymentRepo extends Effect.Service<X402PaymentRepo>()("X402PaymentRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const find = (txId: string) =>
      sql`
        SELECT tx_id, url, x402_version, requirement, payload, status, settlement_signature, response FROM x402_payments WHERE tx_id = ${txId}
      `.pipe(decodeRows("x402_payments", X402PaymentRow), Effect.map((rows) => rows[0]), Effect.orDie)

    /** Records a freshly built payment; a payment that may have been sent is never replaced (false then). */
    const prepare = (input: { txId: string; tenantId: string; url: string; x402Version: number; requirement: unknown; payload: unknown }) =>
      sql`
        INSERT INTO x402_payments (tx_id, tenant_id, url, x402_version, requirement, payload, status)
        VALUES (${input.txId}, ${input.tenantId}, ${input.url}, ${input.x402Version}, ${JSON.stringify(input.requirement)}::jsonb, ${JSON.stringify(input.payload)}::jsonb, 'prepared')
        ON CONFLICT (tx_id) DO UPDATE SET url = EXCLUDED.url, x402_version = EXCLUDED.x402_version, requirement = EXCLUDED.requirement,
          payload = EXCLUDED.payload, updated_at = now()
        WHERE x402_payments.status = 'prepared'
        RETURNING tx_id
      `.pipe(Effect.map((rows) => rows.length === 1), Effect.orDie)

    /** Marks the payment as (about to be) sent; idempotent. */
    const markSent = (txId: string) =>
      sql`UPDATE x402_payments SET status = 'sent', updated_at = now() WHERE tx_id = ${txId} AND status IN ('prepared', 'sent')`.pipe(Effect.asVoid, Effect.orDie)

    const settle = (txId: string, signature: string, response: unknown) =>
      sql`
        UPDATE x402_payments SET status = 'settled', settlement_signature = ${signature}, response = ${JSON.stringify(response)}::jsonb, updated_at = now()
        WHERE tx_id = ${txId}
      `.pipe(Effect.asVoid, Effect.orDie)

    const refuse = (txId: string, response: unknown) =>
      sql`UPDATE x402_payments SET status = 'refused', response = ${JSON.stringify(response)}::jsonb, updated_at = now() WHERE tx_id = ${txId} AND status = 'sent'`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** The chain settled the payment's transaction as spending nothing (not landed, or failed on chain): a retry may build a new one. */
    const reopen = (txId: string) =>
      sql`
        UPDATE x402_payments SET status = 'prepared', settlement_signature = NULL, response = NULL, updated_at = now()
        WHERE tx_id = ${txId} AND status <> 'prepared'
      `.pipe(Effect.asVoid, Effect.orDie)

    return { find, prepare, markSent, settle, refuse, reopen }
  })
}) {}
