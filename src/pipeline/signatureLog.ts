/**
 * The transaction_signatures table (its one owner): signatures a transaction's bytes may have left the
 * service with, beyond the one its row holds now (an attempt a retry replaced; the relay's fee-payer
 * signature of a gasless transaction, which is the transaction's id), each with the last block height
 * at which it can land and, once the chain said it, its outcome. A settled outcome is a fact about the
 * chain: it is never changed (a signature that did not land past its height never will).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { LandingCandidate } from "../chain/landing.js"
import { decodeRows } from "../db/rowDecoding.js"

const SignatureVia = Schema.Literal("rpc", "relay", "x402")
export type SignatureVia = typeof SignatureVia.Type
const SignatureOutcome = Schema.Literal("landed", "failed_on_chain", "not_landed")
export type SignatureOutcome = typeof SignatureOutcome.Type

export interface LoggedSignature {
  readonly signature: string
  readonly attempt: number
  readonly via: SignatureVia
  readonly lastValidBlockHeight: bigint | null
  readonly outcome: SignatureOutcome | null
}

const SignatureRow = Schema.Struct({
  signature: Schema.String,
  attempt: Schema.Number,
  via: SignatureVia,
  last_valid_block_height: Schema.NullOr(Schema.String),
  outcome: Schema.NullOr(SignatureOutcome)
})
type SignatureRow = typeof SignatureRow.Type

export class SignatureLog extends Effect.Service<SignatureLog>()("SignatureLog", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Records a signature the transaction may have been broadcast with (again: nothing changes). */
    const record = (txId: string, entry: { readonly signature: string; readonly attempt: number; readonly via: SignatureVia; readonly lastValidBlockHeight: bigint | null }) =>
      sql`
        INSERT INTO transaction_signatures (tx_id, signature, attempt, via, last_valid_block_height)
        VALUES (${txId}, ${entry.signature}, ${entry.attempt}, ${entry.via}, ${entry.lastValidBlockHeight === null ? null : entry.lastValidBlockHeight.toString()})
        ON CONFLICT (tx_id, signature) DO NOTHING
      `.pipe(Effect.asVoid, Effect.orDie)

    /** What the chain said of `signatures` (recorded if they were not; an outcome already settled stays). */
    const settle = (txId: string, entries: ReadonlyArray<{ readonly signature: string; readonly attempt: number; readonly via: SignatureVia; readonly lastValidBlockHeight: bigint | null }>, outcome: SignatureOutcome, atHeight: bigint | null) =>
      entries.length === 0
        ? Effect.void
        : sql`
            INSERT INTO transaction_signatures (tx_id, signature, attempt, via, last_valid_block_height, outcome, settled_at_height, settled_at)
            SELECT ${txId}, e.signature, e.attempt, e.via, e.last_valid_block_height, ${outcome}, ${atHeight === null ? null : atHeight.toString()}, now()
            FROM jsonb_to_recordset(${JSON.stringify(entries.map((entry) => ({
              signature: entry.signature, attempt: entry.attempt, via: entry.via,
              last_valid_block_height: entry.lastValidBlockHeight === null ? null : entry.lastValidBlockHeight.toString()
            })))}::jsonb) AS e(signature text, attempt int, via text, last_valid_block_height bigint)
            ON CONFLICT (tx_id, signature) DO UPDATE SET outcome = EXCLUDED.outcome, settled_at_height = EXCLUDED.settled_at_height, settled_at = now()
            WHERE transaction_signatures.outcome IS NULL
          `.pipe(Effect.asVoid, Effect.orDie)

    /** Every signature logged for the transaction, oldest attempt first. */
    const ofTransaction = (txId: string) =>
      sql`
        SELECT signature, attempt, via, last_valid_block_height::text AS last_valid_block_height, outcome
        FROM transaction_signatures WHERE tx_id = ${txId} ORDER BY attempt, recorded_at
      `.pipe(
        decodeRows("transaction_signatures", SignatureRow),
        Effect.map((rows) =>
          rows.map((row): LoggedSignature => ({
            signature: row.signature, attempt: row.attempt, via: row.via, outcome: row.outcome,
            lastValidBlockHeight: row.last_valid_block_height === null ? null : BigInt(row.last_valid_block_height)
          }))
        ),
        Effect.orDie
      )

    return { record, settle, ofTransaction }
  })
}) {}

/** The logged signatures the chain has not settled yet, as landing candidates. */
export const unsettled = (logged: ReadonlyArray<LoggedSignature>): ReadonlyArray<LoggedSignature & LandingCandidate> =>
  logged.filter((entry) => entry.outcome === null)
