/**
 * Approvals (issue 31): the preview an approver judges and its hash, the operators who approved (a quorum),
 * the approve body that binds an approval to the preview the approver saw, and a wallet's quorum setting.
 * docs/decisions/approvals.md.
 */
import * as Schema from "effect/Schema"
import { Timestamp, Uuid } from "./common.js"
import { strict } from "./strict.js"


export const Sha256Hex = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/, { message: () => "must be a SHA-256 hex digest (64 lowercase hex characters)" }))

/** An amount as a person reads it and exactly: `amount` in whole units, `baseUnits` in lamports or token base units. */
export const AssetAmount = Schema.Struct({
  symbol: Schema.String,
  mint: Schema.NullOr(Schema.String),
  decimals: Schema.NullOr(Schema.Number),
  baseUnits: Schema.String,
  amount: Schema.String,
  display: Schema.String
}).annotations({ identifier: "AssetAmount" })

export const InstructionPreview = Schema.Struct({
  index: Schema.Number,
  programId: Schema.String,
  program: Schema.String,
  action: Schema.String,
  description: Schema.String,
  amounts: Schema.Array(AssetAmount),
  counterparties: Schema.Array(Schema.String)
}).annotations({ identifier: "InstructionPreview" })

export const ApprovalPreview = Schema.Struct({
  version: Schema.Number,
  summary: Schema.String,
  wallet: Schema.String,
  type: Schema.String,
  protocol: Schema.String,
  instructions: Schema.Array(InstructionPreview),
  /** the wallet's balances after the simulated transaction minus before, per asset (the fee included) */
  balanceChanges: Schema.Array(AssetAmount),
  /** what changes hands or closes (owner programs, delegates, authorities, closes), in words */
  controls: Schema.Array(Schema.String),
  fee: Schema.Struct({ amount: AssetAmount, paidBy: Schema.Literal("wallet", "relay", "facilitator") }),
  counterparties: Schema.Array(Schema.String),
  /** accounts it creates under keys generated for this build (a new mint): compared by place, not address, after a rebuild */
  newAccounts: Schema.Array(Schema.String),
  riskTier: Schema.String,
  reasons: Schema.Array(Schema.String),
  simulation: Schema.Struct({ ok: Schema.Boolean, error: Schema.optional(Schema.String) }),
  simulatedAt: Timestamp
}).annotations({ identifier: "ApprovalPreview" })
export type ApprovalPreview = typeof ApprovalPreview.Type

/** One operator's approval: who (the API key's id) and when, and the preview it approved. */
export const ApprovalEntry = Schema.Struct({
  by: Schema.String,
  at: Timestamp,
  previewHash: Schema.optional(Schema.String)
}).annotations({ identifier: "ApprovalEntry" })

/** The quorum fields a transaction's approval carries beside the spec's status and times. */
export const ApprovalQuorumFields = {
  /** distinct operators whose approval releases signing */
  approvalsRequired: Schema.optional(Schema.Number),
  approvals: Schema.optional(Schema.Array(ApprovalEntry)),
  preview: Schema.optional(ApprovalPreview),
  previewHash: Schema.optional(Schema.String),
  /** 1 at the first gate; one more each time a changed effect sent it back for a new approval */
  round: Schema.optional(Schema.Number),
  /** why it came back to the gate: what changed since the approved preview */
  changedSinceApproval: Schema.optional(Schema.String)
}

/**
 * Body of `POST /transactions/<txId>/approve` (the spec shows none; both fields optional): `previewHash` is the
 * hash of the preview the approver saw; when it is not the current preview's, the approve is refused with 409
 * and changes nothing.
 */
export const ApproveBody = Schema.Struct({
  previewHash: Schema.optionalWith(Sha256Hex, { exact: true })
}).annotations({ identifier: "ApproveBody" }).pipe(strict)
export type ApproveBody = typeof ApproveBody.Type

export const MAX_APPROVALS_REQUIRED = 10

/** A wallet's approval quorum: how many distinct operators must approve each of its transactions at the gate. */
export const WalletApprovalQuorum = Schema.Struct({
  walletId: Uuid,
  approvalsRequired: Schema.Number,
  updatedAt: Schema.NullOr(Timestamp),
  updatedBy: Schema.NullOr(Schema.String)
}).annotations({ identifier: "WalletApprovalQuorum" })

export const WalletApprovalQuorumBody = Schema.Struct({
  approvalsRequired: Schema.Number.pipe(
    Schema.int({ message: () => `must be an integer from 1 to ${MAX_APPROVALS_REQUIRED}` }),
    Schema.between(1, MAX_APPROVALS_REQUIRED, { message: () => `must be an integer from 1 to ${MAX_APPROVALS_REQUIRED}` })
  )
}).annotations({ identifier: "WalletApprovalQuorumBody" }).pipe(strict)
export type WalletApprovalQuorumBody = typeof WalletApprovalQuorumBody.Type
