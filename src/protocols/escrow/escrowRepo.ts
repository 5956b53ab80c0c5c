/**
 * Escrow records in SQL, always filtered by tenant: upserted from the chain's escrow state after a
 * confirmed escrow operation, listed per wallet (every escrow the wallet is a party to or acted on).
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { EscrowOperation } from "../../../schemas/escrow.js"
import { makeKeyset, type PageRequest } from "../../db/keysetPage.js"
import type { EscrowState } from "./state.js"

export interface EscrowRecordRow {
  readonly tenant_id: string
  readonly escrow_address: string
  readonly program_id: string
  readonly escrow_id: string
  readonly wallet_id: string
  readonly protocol: string
  readonly state: string
  readonly status: string
  readonly creator: string
  readonly counterparty: string
  readonly arbiter: string
  readonly fee_recipient: string
  readonly amount: string
  readonly paid_out: string
  readonly fee_bps: number
  readonly deadline_unix_sec: string
  readonly milestone_count: number
  readonly milestones_released: number
  readonly resolution: string | null
  readonly last_tx_id: string | null
  readonly last_signature: string | null
  readonly created_at: Date | string
  readonly updated_at: Date | string
}

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
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString()
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
      sql<EscrowRecordRow>`
        SELECT ${columns} FROM escrow_records WHERE ${sql.and(ofWallet(tenantId, walletId, publicKey))}
        ORDER BY created_at, escrow_address
      `.pipe(Effect.orDie)

    const walletOrder = makeKeyset(sql, [
      { column: "created_at", descending: false, type: "timestamptz" },
      { column: "escrow_address", descending: false, type: "text" }
    ])

    /** A page of them, oldest first (GET /wallets/<id>/escrows): the rows and the next page's cursor (null on the last). */
    const pageForWallet = (tenantId: string, walletId: string, publicKey: string, page: PageRequest) =>
      Effect.gen(function* () {
        const where = yield* walletOrder.where(ofWallet(tenantId, walletId, publicKey), page)
        const rows = yield* sql<EscrowRecordRow & { page_key: unknown }>`
          SELECT ${columns}, ${walletOrder.keyColumn} FROM escrow_records WHERE ${where}
          ORDER BY ${walletOrder.orderBy} LIMIT ${page.limit + 1}
        `.pipe(Effect.orDie)
        const { items, info } = walletOrder.pageOf(rows, page, { total: 0, totalCapped: false })
        return { rows: items, nextCursor: info.nextCursor }
      })

    /** Lamports still locked by each open escrow `creator` funded (created, accepted, disputed), through the creator index. */
    const lockedByCreator = (tenantId: string, creator: string) =>
      sql<{ protocol: string; locked: string }>`
        SELECT protocol, (amount - paid_out)::text AS locked FROM escrow_records
        WHERE tenant_id = ${tenantId} AND creator = ${creator} AND status IN ('created', 'accepted', 'disputed') AND amount > paid_out
      `.pipe(Effect.map((rows) => rows.map((row) => ({ protocol: row.protocol, lockedLamports: BigInt(row.locked) }))), Effect.orDie)

    return { upsert, listForWallet, pageForWallet, lockedByCreator }
  })
}) {}
