/**
 * Bodies of the escrow helper endpoints (spec: Escrow helpers; [n14] in docs/decisions/escrow.md):
 * the intent fields plus `walletId`, the custodied wallet that signs through the pipeline. The
 * numeric id comes from the path for `/escrow/<id>/...`; a body `escrowNumericId` must agree with it.
 */
import { Schema } from "effect"
import { Base58Address, IdempotencyKey, Uuid } from "../common.js"
import { CreateEscrowIntent, EscrowNumericId } from "../intent.js"

/** Fields every helper takes besides the intent's. */
export const HelperFields = {
  walletId: Uuid,
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true }),
  requireApproval: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** The signer's public key ([n14] in schemas.md); when given it must be the wallet's. */
  wallet: Schema.optionalWith(Base58Address, { exact: true }),
  /** The spec's tool argument name for `wallet` (schemas/walletAlias.ts); the same check applies. */
  walletAddress: Schema.optionalWith(Base58Address, { exact: true })
}

/** The keys that are not intent fields, dropped before the intent is assembled. */
export const HELPER_KEYS = ["walletId", "idempotencyKey", "requireApproval", "wallet", "walletAddress"] as const

export const EscrowCreateHelperBody = Schema.extend(CreateEscrowIntent, Schema.Struct(HelperFields))

const ByCreator = {
  escrowNumericId: Schema.optionalWith(EscrowNumericId, { exact: true }),
  creator: Base58Address,
  ...HelperFields
}

/** accept, refund, dispute */
export const EscrowByCreatorHelperBody = Schema.Struct(ByCreator)

export const EscrowReleaseHelperBody = Schema.Struct({ ...ByCreator, counterparty: Base58Address, feeRecipient: Base58Address })

/** `counterparty` is optional: read from the escrow's on-chain state when absent. */
export const EscrowResolveHelperBody = Schema.Struct({
  ...ByCreator,
  winnerIsCreator: Schema.Boolean,
  counterparty: Schema.optionalWith(Base58Address, { exact: true })
})
