/**
 * What a pipeline run needs when it takes a job: the transaction row, its wallet's public key, and from the
 * protocol's risk config the delta guard's variance threshold (none: 0) and the quote-age bound the signing stage
 * applies again (a swap approved long after its quote; none: unbounded). Read by the claim
 * statement itself (outbox.ts), so taking a job and reading its transaction is one round trip.
 */
import { Schema } from "effect"
import { TransactionRow } from "./transactionRow.js"

export interface RunContext {
  readonly row: TransactionRow
  readonly publicKey: string
  readonly deltaVarianceBpsThreshold: number
  readonly maxQuoteAgeSeconds: number | undefined
}

/** A transaction row with the columns the claim joins to it. */
export const RunContextColumns = Schema.Struct({
  ...TransactionRow.fields,
  wallet_public_key: Schema.String,
  delta_variance_bps: Schema.Unknown,
  max_quote_age_seconds: Schema.Unknown
})
export type RunContextColumns = typeof RunContextColumns.Type

export const runContextOf = ({ wallet_public_key, delta_variance_bps, max_quote_age_seconds, ...row }: RunContextColumns): RunContext => ({
  row,
  publicKey: wallet_public_key,
  deltaVarianceBpsThreshold: typeof delta_variance_bps === "number" ? delta_variance_bps : 0,
  maxQuoteAgeSeconds: typeof max_quote_age_seconds === "number" ? max_quote_age_seconds : undefined
})
