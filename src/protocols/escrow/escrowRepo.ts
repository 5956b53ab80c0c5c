/**
 * Escrow records in SQL, always filtered by tenant: upserted from the chain's escrow state after a
 * confirmed escrow operation, listed per wallet (every escrow the wallet is a party to or acted on).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import type { EscrowOperation } from "../../../schemas/escrow.js"
import { makeKeyset, type PageRequest, withPageKey } from "../../db/keysetPage.js"
import { decodeRows, Timestamp } from "../../db/rowDecoding.js"
import type { EscrowState } from "./state.js"

export const EscrowRecordRow = Schema.Struct({
  tenant_id: Schema.String,
  escrow_address: Schema.String,
  program_id: Schema.String,
  escrow_id: Schema.String,
  wallet_id: Schema.String,
  protocol: Schema.String,
  state: Schema.String,
  status: Schema.String,
  creator: Schema.String,
  counterparty: Schema.String,
  arbiter: Schema.String,
  fee_recipient: Schema.String,
  amount: Schema.String,
  paid_out: Schema.String,
  fee_bps: Schema.Number,
  deadline_unix_sec: Schema.String,
  milestone_count: Schema.Number,
  milestones_released: Schema.Number,
  resolution: Schema.NullOr(Schema.String),
  last_tx_id: Schema.NullOr(Schema.String),
  last_signature: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp
})
export type EscrowRecordRow = typeof EscrowRecordRow.Type

const EscrowRecordPageRow = withPageKey(EscrowRecordRow)

const LockedByProtocol = Schema.Struct({ protocol: Schema.String, locked: Schema.String })

export interface EscrowUpsert {
  readonly tenantId: string
  readonly walletId: string
  readonly escrowAddress: string
  readonly programId: string
  readonly operation: EscrowOperation
  readonly state: EscrowState
  readonly txId: string
  readonly signature: string
}

/** The record as the API answers it ([escrow] in docs/decisions/schemas.md, plus address and program). */
export const toEscrowRecord = (row: EscrowRecordRow, askedWalletId: string) => ({
  walletId: askedWalletId,
  protocol: row.protocol,
  escrowId: row.escrow_id,
  escrowAddress: row.escrow_address,
  programId: row.program_id,
  state: row.state,
  status: row.status,
  counterparty: row.counterparty,
  amount: BigInt(row.amount),
  creator: row.creator,
  arbiter: row.arbiter,
  feeRecipient: row.fee_recipient,
  feeBps: row.fee_bps,
  deadlineUnixSec: Number(row.deadline_unix_sec),
  paidOut: BigInt(row.paid_out),
  milestoneCount: row.milestone_count,
  milestonesReleased: row.milestones_released,
  ...(row.resolution === null ? {} : { resolution: row.resolution }),
  ...(row.last_tx_id === null ? {} : { lastTxId: row.last_tx_id }),
  ...(row.last_signature === null ? {} : { lastSignature: row.last_signature }),
  createdAt: row.created_at.toISOString(),
  updatedAt: row.updated_at.toISOString()
})

const releasedCount = (state: EscrowState) => state.milestones.filter((m) => m.released).length

export class EscrowRepo extends Effect.Service<EscrowRepo>()("EscrowRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** Inserts or refreshes the record; the first wallet that indexed the escrow stays its wallet_id. */
    const upsert = (input: EscrowUpsert) => {
      const s = input.state
      return sql`
        INSERT INTO escrow_records (tenant_id, escrow_address, program_id, escrow_id, wallet_id, protocol, state, status,
          creator, counterparty, arbiter, fee_recipient, amount, paid_out, fee_bps, deadline_unix_sec, milestone_count,
          milestones_released, resolution, last_tx_id, last_signature)
        VALUES (${input.tenantId}, ${input.escrowAddress}, ${input.programId}, ${s.escrowId.toString()}, ${input.walletId}, 'escrow',
          ${input.operation}, ${s.status}, ${s.creator.toBase58()}, ${s.counterparty.toBase58()}, ${s.arbiter.toBase58()},
          ${s.feeRecipient.toBase58()}, ${s.amount.toString()}, ${s.paidOut.toString()}, ${s.feeBps}, ${s.deadlineUnixSec.toString()},
          ${s.milestones.length}, ${releasedCount(s)}, ${s.resolution}, ${input.txId}, ${input.signature})
        ON CONFLICT (tenant_id, escrow_address) DO UPDATE SET
          state = EXCLUDED.state, status = EXCLUDED.status, paid_out = EXCLUDED.paid_out,
          milestones_released = EXCLUDED.milestones_released, resolution = EXCLUDED.resolution,
          last_tx_id = EXCLUDED.last_tx_id, last_signature = EXCLUDED.last_signature, updated_at = now()
      `.pipe(Effect.asVoid, Effect.orDie)
    }

    /** Escrows the wallet created, is counterparty, arbiter or fee recipient of, or acted on first. */
    const columns = sql.literal(`tenant_id, escrow_address, program_id, escrow_id, wallet_id::text AS wallet_id, protocol, state, status, creator,
      counterparty, arbiter, fee_recipient, amount::text AS amount, paid_out::text AS paid_out, fee_bps,
      deadline_unix_sec::text AS deadline_unix_sec, milestone_count, milestones_released, resolution,
      last_tx_id::text AS last_tx_id, last_signature, created_at, updated_at`)
    const ofWallet = (tenantId: string, walletId: string, publicKey: string) => [
      sql`tenant_id = ${tenantId}`,
      sql`(wallet_id = ${walletId} OR creator = ${publicKey} OR counterparty = ${publicKey} OR arbiter = ${publicKey} OR fee_recipient = ${publicKey})`
    ]

    /** Every escrow of the wallet (its positions), oldest first. */
    const listForWallet = (tenantId: string, walletId: string, publicKey: string) =>
      sql`
        SELECT ${columns} FROM escrow_records WHERE ${sql.and(ofWallet(tenantId, walletId, publicKey))}
        ORDER BY created_at, escrow_address
      `.pipe(decodeRows("escrow_records", EscrowRecordRow), Effect.orDie)

    const walletOrder = makeKeyset(sql, [
      { column: "created_at", descending: false, type: "timestamptz" },
      { column: "escrow_address", descending: false, type: "text" }
    ])

    /** A page of them, oldest first (GET /wallets/<id>/escrows): the rows and the next page's cursor (null on the last). */
    const pageForWallet = (tenantId: string, walletId: string, publicKey: string, page: PageRequest) =>
      Effect.gen(function* () {
        const where = yield* walletOrder.where(ofWallet(tenantId, walletId, publicKey), page)
        const rows = yield* sql`
          SELECT ${columns}, ${walletOrder.keyColumn} FROM escrow_records WHERE ${where}
          ORDER BY ${walletOrder.orderBy} LIMIT ${page.limit + 1}
        `.pipe(decodeRows("escrow_records", EscrowRecordPageRow), Effect.orDie)
        const { items, info } = walletOrder.pageOf(rows, page, { total: 0, totalCapped: false })
        return { rows: items, nextCursor: info.nextCursor }
      })

    /** Lamports still locked by each open escrow `creator` funded (created, accepted, disputed), through the creator index. */
    const lockedByCreator = (tenantId: string, creator: string) =>
      sql`
        SELECT protocol, (amount - paid_out)::text AS locked FROM escrow_records
        WHERE tenant_id = ${tenantId} AND creator = ${creator} AND status IN ('created', 'accepted', 'disputed') AND amount > paid_out
      `.pipe(
        decodeRows("escrow_records", LockedByProtocol),
        Effect.map((rows) => rows.map((row) => ({ protocol: row.protocol, lockedLamports: BigInt(row.locked) }))),
        Effect.orDie
      )

    return { upsert, listForWallet, pageForWallet, lockedByCreator }
  })
}) {}
