/**
 * A transaction's `approval` (issue 31; spec [n2]/[n8] fields kept): its status and times, the preview and
 * its hash, how many distinct operators must approve, and each approval given (who, when, which preview).
 * Pure: the gate opens one, an approve records one operator's approval (the Nth releases signing), and a
 * changed effect opens the next round. docs/decisions/approvals.md.
 */
import type { ApprovalPreview } from "./preview.js"

export interface ApprovalEntry {
  readonly by: string
  readonly at: string
  readonly previewHash?: string
}

export interface ApprovalRecord {
  readonly status: "pending" | "approved" | "rejected" | "expired"
  readonly requestedAt: string
  readonly expiresAt: string
  readonly decidedAt?: string
  readonly decidedBy?: string
  readonly reason?: string
  readonly approvalsRequired?: number
  readonly approvals?: ReadonlyArray<ApprovalEntry>
  readonly preview?: ApprovalPreview
  readonly previewHash?: string
  readonly round?: number
  readonly changedSinceApproval?: string
}

/** A gate opened now: pending for `ttlMs`, no approval yet. */
export const openApproval = (input: {
  readonly now: Date
  readonly ttlMs: number
  readonly approvalsRequired: number
  readonly preview: ApprovalPreview
  readonly previewHash: string
  readonly round?: number
  readonly changedSinceApproval?: string
}): ApprovalRecord => ({
  status: "pending",
  requestedAt: input.now.toISOString(),
  expiresAt: new Date(input.now.getTime() + input.ttlMs).toISOString(),
  approvalsRequired: input.approvalsRequired,
  approvals: [],
  preview: input.preview,
  previewHash: input.previewHash,
  round: input.round ?? 1,
  ...(input.changedSinceApproval === undefined ? {} : { changedSinceApproval: input.changedSinceApproval })
})

export type ApproveOutcome =
  | { readonly kind: "duplicate"; readonly approvals: number; readonly required: number }
  | { readonly kind: "recorded"; readonly approval: ApprovalRecord; readonly approvals: number; readonly required: number }
  | { readonly kind: "released"; readonly approval: ApprovalRecord; readonly approvals: number; readonly required: number }

/**
 * `by` approves at `now`: refused when `by` approved this round already; else recorded, and when it is the
 * `required`th distinct approval (the larger of the gate's figure and the wallet's current one) it releases
 * signing. A gate opened before quorums (no `approvals`) counts as needing one.
 */
export const recordApproval = (approval: Readonly<Record<string, unknown>> | null, by: string, now: Date, walletRequired: number): ApproveOutcome => {
  const record = (approval ?? {}) as Partial<ApprovalRecord>
  const given = record.approvals ?? []
  const required = Math.max(record.approvalsRequired ?? 1, walletRequired)
  if (given.some((entry) => entry.by === by)) return { kind: "duplicate", approvals: given.length, required }
  const approvals = [...given, { by, at: now.toISOString(), ...(record.previewHash === undefined ? {} : { previewHash: record.previewHash }) }]
  const updated = { ...record, approvalsRequired: required, approvals } as ApprovalRecord
  if (approvals.length < required) return { kind: "recorded", approval: updated, approvals: approvals.length, required }
  return { kind: "released", approval: { ...updated, status: "approved", decidedAt: now.toISOString(), decidedBy: by }, approvals: approvals.length, required }
}

/**
 * Did `by` already approve what is shown now (the current round's preview, and `previewHash` when one is given)?
 * The approval still waits or was released since; a rejected or expired one is not. A repeated approve (its
 * answer lost, a double click) then answers the transaction as it stands instead of a refusal, and changes nothing.
 */
export const approvedAlreadyBy = (approval: Readonly<Record<string, unknown>> | null, by: string, previewHash: string | undefined): boolean => {
  const record = (approval ?? {}) as Partial<ApprovalRecord>
  if (record.status !== "pending" && record.status !== "approved") return false
  if (previewHash !== undefined && previewHash !== record.previewHash) return false
  // A gate opened before quorums kept no list: its one approver is who decided.
  if (record.approvals === undefined) return record.status === "approved" && record.decidedBy === by
  return record.approvals.some((entry) => entry.by === by && entry.previewHash === record.previewHash)
}

/** Did `by` reject it (a repeated reject answers the failed transaction instead of "not awaiting approval")? */
export const rejectedAlreadyBy = (approval: Readonly<Record<string, unknown>> | null, by: string): boolean => {
  const record = (approval ?? {}) as Partial<ApprovalRecord>
  return record.status === "rejected" && record.decidedBy === by
}

/** What an approval event carries for webhook subscribers and the audit log: the preview, its hash, the quorum. */
export const approvalEventMetadata = (approval: ApprovalRecord) => ({
  previewHash: approval.previewHash,
  preview: approval.preview,
  approvalsRequired: approval.approvalsRequired,
  approvals: approval.approvals,
  round: approval.round
})
