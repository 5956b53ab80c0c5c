/**
 * Policy backtests (issue 34 item 2): a candidate policy replayed over a wallet's recorded transactions of the
 * last N days (their intents and build facts as recorded; nothing runs on chain), per transaction the decision
 * it would have had with its trace, and a summary.
 */
import * as Schema from "effect/Schema"
import { LamportsText, Timestamp, Uuid } from "./common.js"
import { Decision, PolicyRules, RuleTrace } from "./policy.js"
import { STRICT_INPUT } from "./strict.js"

export const MAX_BACKTEST_DAYS = 90

export const PolicyBacktestBody = Schema.Struct({
  walletId: Uuid,
  days: Schema.Number.pipe(
    Schema.int({ message: () => "must be an integer" }),
    Schema.between(1, MAX_BACKTEST_DAYS, { message: () => `must be between 1 and ${MAX_BACKTEST_DAYS}` })
  ),
  /** The candidate: its rules, or a stored policy (at `version`, default its current one). */
  rules: Schema.optional(PolicyRules),
  policyId: Schema.optional(Uuid),
  version: Schema.optional(Schema.Number.pipe(Schema.int({ message: () => "must be an integer" }), Schema.greaterThanOrEqualTo(1, { message: () => "must be at least 1" })))
}).annotations({ identifier: "PolicyBacktestBody", ...STRICT_INPUT })
export type PolicyBacktestBody = typeof PolicyBacktestBody.Type

export const BacktestedTransaction = Schema.Struct({
  txId: Uuid,
  createdAt: Timestamp,
  type: Schema.String,
  amountLamports: LamportsText,
  status: Schema.String,
  recordedDecision: Schema.NullOr(Decision),
  decision: Decision,
  reasons: Schema.Array(Schema.String),
  changed: Schema.Boolean,
  trace: Schema.Array(RuleTrace)
})

export const PolicyBacktest = Schema.Struct({
  walletId: Uuid,
  days: Schema.Number,
  from: Timestamp,
  to: Timestamp,
  candidate: Schema.Struct({ policyId: Schema.NullOr(Uuid), version: Schema.NullOr(Schema.Number), rules: Schema.Number }),
  transactions: Schema.Array(BacktestedTransaction),
  summary: Schema.Struct({
    total: Schema.Number,
    wouldAllow: Schema.Number,
    wouldDeny: Schema.Number,
    wouldAskApproval: Schema.Number,
    changed: Schema.Number,
    /** lamports of the transactions the candidate would deny */
    valueBlockedLamports: LamportsText
  })
}).annotations({ identifier: "PolicyBacktest" })
export type PolicyBacktest = typeof PolicyBacktest.Type
