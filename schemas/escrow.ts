/** Escrows: the record kept per escrow, the helper endpoints' bodies, positions (spec: Escrow helpers, Other records; [n14]). */
import * as Schema from "effect/Schema"
import { Amount, AmountString, Base58Address, Timestamp, Uuid } from "./common.js"
import { CreateEscrowIntent, EscrowByCreatorIntent, EscrowNumericId, ReleaseEscrowIntent } from "./intent.js"
import { ProtocolId } from "./protocol.js"

export const ESCROW_OPERATIONS = [
  "create_escrow",
  "accept_escrow",
  "release_escrow",
  "refund_escrow",
  "dispute_escrow",
  "resolve_dispute",
  "create_milestone_escrow",
  "release_milestone"
] as const
/** The record's `state`: the last escrow operation applied. */
export const EscrowOperation = Schema.Literal(...ESCROW_OPERATIONS)
export type EscrowOperation = typeof EscrowOperation.Type

export const EscrowRecord = Schema.Struct({
  walletId: Uuid,
  protocol: ProtocolId,
  escrowId: EscrowNumericId,
  state: EscrowOperation,
  counterparty: Base58Address,
  amount: Amount,
  creator: Schema.optional(Base58Address),
  arbiter: Schema.optional(Base58Address),
  feeRecipient: Schema.optional(Base58Address),
  deadlineUnixSec: Schema.optional(Schema.Number),
  /** Milestone escrows: how many milestones were released so far. */
  milestonesReleased: Schema.optional(Schema.Number),
  lastTxId: Schema.optional(Uuid),
  lastSignature: Schema.optional(Schema.String),
  createdAt: Timestamp,
  updatedAt: Timestamp
})
export type EscrowRecord = typeof EscrowRecord.Type

/** `<id>` of `/escrow/<id>/...` is the numeric escrow id. */
export const EscrowPathParams = Schema.Struct({ id: EscrowNumericId })

/** The signer's public key; the adapter defaults it to the party the operation needs. */
const SignerWallet = { wallet: Schema.optionalWith(Base58Address, { exact: true }) }

export const EscrowCreateBody = Schema.extend(CreateEscrowIntent, Schema.Struct(SignerWallet))
export type EscrowCreateBody = typeof EscrowCreateBody.Type
export const EscrowAcceptBody = Schema.extend(EscrowByCreatorIntent, Schema.Struct(SignerWallet))
export type EscrowAcceptBody = typeof EscrowAcceptBody.Type
export const EscrowReleaseBody = Schema.extend(ReleaseEscrowIntent, Schema.Struct(SignerWallet))
export type EscrowReleaseBody = typeof EscrowReleaseBody.Type
export const EscrowRefundBody = EscrowAcceptBody
export type EscrowRefundBody = EscrowAcceptBody
export const EscrowDisputeBody = EscrowAcceptBody
export type EscrowDisputeBody = EscrowAcceptBody
export const EscrowResolveBody = Schema.Struct({
  escrowNumericId: EscrowNumericId,
  creator: Base58Address,
  winnerIsCreator: Schema.Boolean,
  ...SignerWallet
})
export type EscrowResolveBody = typeof EscrowResolveBody.Type

/** [n14] What an escrow helper answers: the unsigned transaction it built, for the caller's signer. */
export const EscrowBuildResult = Schema.Struct({
  operation: EscrowOperation,
  escrowNumericId: EscrowNumericId,
  programId: Base58Address,
  /** Unsigned transaction, base64 wire bytes. */
  transaction: Schema.String
})
export type EscrowBuildResult = typeof EscrowBuildResult.Type

export const Position = Schema.Struct({
  protocol: ProtocolId,
  type: Schema.String,
  amount: AmountString,
  token: Schema.String,
  value: Schema.optional(Schema.Number),
  apy: Schema.optional(Schema.Number),
  walletId: Schema.optional(Uuid),
  updatedAt: Schema.optional(Timestamp)
})
export type Position = typeof Position.Type
