/** Indexed protocol positions in SQL (migration 0014), always filtered by tenant. */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

export const PositionRow = Schema.Struct({
  protocol: Schema.String,
  position_type: Schema.String,
  token: Schema.String,
  amount: Schema.String,
  value_lamports: Schema.String,
  last_tx_id: Schema.NullOr(Schema.String),
  updated_at: Timestamp
})
export type PositionRow = typeof PositionRow.Type

export interface PositionUpsert {
  readonly tenantId: string
  readonly walletId: string
  readonly protocol: string
  readonly positionType: string
  readonly token: string
  /** the amount the chain shows now; 0 removes the position */
  readonly amount: bigint
  /** its worth in lamports at indexing */
  readonly valueLamports: bigint
  readonly txId: string
}

export class PositionRepo extends Effect.Service<PositionRepo>()("PositionRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const set = (input: PositionUpsert) =>
      (input.amount === 0n
        ? sql`
            DELETE FROM positions WHERE tenant_id = ${input.tenantId} AND wallet_id = ${input.walletId}
              AND protocol = ${input.protocol} AND position_type = ${input.positionType} AND token = ${input.token}`
        : sql`
            INSERT INTO positions (tenant_id, wallet_id, protocol, position_type, token, amount, value_lamports, last_tx_id)
            VALUES (${input.tenantId}, ${input.walletId}, ${input.protocol}, ${input.positionType}, ${input.token}, ${input.amount.toString()},
              ${input.valueLamports.toString()}, ${input.txId})
            ON CONFLICT (tenant_id, wallet_id, protocol, position_type, token) DO UPDATE SET
              amount = EXCLUDED.amount, value_lamports = EXCLUDED.value_lamports, last_tx_id = EXCLUDED.last_tx_id, updated_at = now()`
      ).pipe(Effect.asVoid, Effect.orDie)

    const listForWallet = (tenantId: string, walletId: string) =>
      sql`
        SELECT protocol, position_type, token, amount::text AS amount, value_lamports::text AS value_lamports, last_tx_id::text AS last_tx_id, updated_at
        FROM positions WHERE tenant_id = ${tenantId} AND wallet_id = ${walletId}
        ORDER BY protocol, position_type, token`.pipe(decodeRows("positions", PositionRow), Effect.orDie)

    return { set, listForWallet }
  })
}) {}
