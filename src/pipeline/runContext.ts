/**
 * What a pipeline run needs when it takes a job: the transaction row, its wallet's public key, and the
 * delta guard's variance threshold from the protocol's risk config (none: 0). Read by the claim
 * statement itself (outbox.ts), so taking a job and reading its transaction is one round trip.
 */
import type { TransactionRow } from "./transactionRow.js"

export interface RunContext {
  readonly row: TransactionRow
  readonly publicKey: string
  readonly deltaVarianceBpsThreshold: number
}

/** A transaction row with the columns the claim joins to it. */
export type RunContextColumns = TransactionRow & { readonly wallet_public_key: string; readonly delta_variance_bps: unknown }

export const runContextOf = ({ wallet_public_key, delta_variance_bps, ...row }: RunContextColumns): RunContext => ({
  row,
  publicKey: wallet_public_key,
  deltaVarianceBpsThreshold: typeof delta_variance_bps === "number" ? delta_variance_bps : 0
})
