/**
 * Escrow helper endpoints (spec: Escrow helpers): each assembles an escrow intent and answers like
 * POST /transactions (the transaction record; 202 at the approval gate). Their bodies: ./escrowBodies.ts.
 */
import * as Schema from "effect/Schema"
import { Amount, ArrayPageQuery, Base58Address, BasisPoints, Timestamp, Uuid } from "../common.js"
import { EscrowPathParams } from "../escrow.js"
import { ProtocolId } from "../protocol.js"
import { type AnySchema, endpoint } from "./endpoint.js"
import { EscrowByCreatorHelperBody, EscrowCreateHelperBody, EscrowReleaseHelperBody, EscrowResolveHelperBody } from "./escrowBodies.js"
import { CreateWaitQuery, TransactionRecord } from "./transactions.js"
import { WalletIdParams } from "./wallets.js"

/** An escrow the wallet is a party to or acted on, as last indexed from the chain after a confirmed operation. */
export const EscrowRecord = Schema.Struct({
  walletId: Uuid,
  protocol: ProtocolId,
  /** The numeric escrow id, as a decimal string (u64). */
  escrowId: Schema.String,
  escrowAddress: Base58Address,
  programId: Base58Address,
  state: Schema.String,
  status: Schema.String,
  counterparty: Base58Address,
  /** Lamports locked at creation. */
  amount: Amount,
  creator: Base58Address,
  arbiter: Base58Address,
  feeRecipient: Base58Address,
  feeBps: BasisPoints,
  deadlineUnixSec: Schema.Number,
  /** Lamports paid out so far (milestones, release, refund). */
  paidOut: Amount,
  milestoneCount: Schema.Int,
  milestonesReleased: Schema.Int,
  resolution: Schema.optional(Schema.String),
  lastTxId: Schema.optional(Uuid),
  lastSignature: Schema.optional(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
}).annotations({ identifier: "EscrowRecord" })

const helper = <B extends AnySchema>(path: string, summary: string, withId: boolean, body: B) =>
  endpoint("escrow", "POST", path, {
    summary,
    ...(withId ? { params: EscrowPathParams } : {}),
    body,
    query: CreateWaitQuery,
    success: TransactionRecord,
    successStatuses: [201, 202, 200],
    recordOnFailure: true
  })

export const EscrowApi = {
  create: helper("/api/v1/escrow/create", "Create an escrow (a create_escrow transaction)", false, EscrowCreateHelperBody),
  accept: helper("/api/v1/escrow/:id/accept", "Accept an escrow as its counterparty", true, EscrowByCreatorHelperBody),
  refund: helper("/api/v1/escrow/:id/refund", "Refund an escrow to its creator", true, EscrowByCreatorHelperBody),
  dispute: helper("/api/v1/escrow/:id/dispute", "Dispute an escrow", true, EscrowByCreatorHelperBody),
  release: helper("/api/v1/escrow/:id/release", "Release an escrow (or a milestone) to the counterparty", true, EscrowReleaseHelperBody),
  resolve: helper("/api/v1/escrow/:id/resolve", "Resolve a disputed escrow as its arbiter", true, EscrowResolveHelperBody),
  listByWallet: endpoint("escrow", "GET", "/api/v1/wallets/:walletId/escrows", {
    summary: "The escrows a wallet is a party to or acted on, oldest first (the next page's cursor in x-next-cursor)",
    params: WalletIdParams,
    query: ArrayPageQuery,
    success: Schema.Array(EscrowRecord)
  })
}
