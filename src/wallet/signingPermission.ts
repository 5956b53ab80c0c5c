/**
 * What a transaction's recorded row must say before any key signs for it: at `signing`, a recorded
 * decision that allows it (allow, or require_approval approved before the approval expired [n8]), an
 * active wallet and a simulated message. The signer actor and the wallet engine process (the split
 * deployment's signer) check the same row with this one function, so neither can sign what the other refuses.
 */

/** True when the approval's time is up at `now` (a missing or unreadable expiry counts as expired: fail closed). */
export const approvalExpired = (approval: Readonly<Record<string, unknown>> | null, now: Date): boolean => {
  const expiresAt = typeof approval?.expiresAt === "string" ? Date.parse(approval.expiresAt) : Number.NaN
  return !Number.isFinite(expiresAt) || expiresAt <= now.getTime()
}

/**
 * An approval decided in time: approved strictly before it expired (what the signer checks, so an
 * approval written late by any path never signs).
 */
export const approvedInTime = (approval: Readonly<Record<string, unknown>> | null): boolean => {
  if (approval?.status !== "approved" || typeof approval.decidedAt !== "string") return false
  const decidedAt = Date.parse(approval.decidedAt)
  return Number.isFinite(decidedAt) && !approvalExpired(approval, new Date(decidedAt))
}

export interface SigningFacts {
  readonly status: string
  readonly message_base64: string | null
  readonly policy_decision: { readonly decision?: string } | null
  readonly approval: Readonly<Record<string, unknown>> | null
  readonly wallet_status: string
}

/** Why the row may not be signed, or undefined when it may. */
export const signingRefusal = (row: SigningFacts): string | undefined => {
  if (row.status !== "signing") return `transaction is ${row.status}, not at signing`
  const decision = row.policy_decision?.decision
  const allowed = decision === "allow" || (decision === "require_approval" && row.approval?.status === "approved")
  if (!allowed) return `recorded decision ${decision ?? "none"} does not allow signing`
  // An approval counts only if it was given before it expired, whichever path wrote it.
  if (decision === "require_approval" && !approvedInTime(row.approval)) return "the approval was not given before it expired"
  if (row.wallet_status !== "active") return `wallet is ${row.wallet_status}`
  if (row.message_base64 === null) return "no simulated message is recorded"
  return undefined
}
