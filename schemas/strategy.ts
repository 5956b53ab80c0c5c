/** Strategy: backtests and paper trades (spec: Strategy; [n15] in docs/decisions/schemas.md). */
import * as Schema from "effect/Schema"
import { Label, Timestamp, Uuid } from "./common.js"
import { TransactionType } from "./intent.js"
import { ProtocolId } from "./protocol.js"

const IntentObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  message: () => ({ message: "must be a JSON object", override: true })
})

const SignedDecimal = Schema.String.pipe(
  Schema.pattern(/^-?(0|[1-9][0-9]{0,29})$/, { message: () => "must be an integer string" })
)
const SafeInt = Schema.Number.pipe(
  Schema.filter((value) => Number.isSafeInteger(value), { message: () => "must be a safe integer" })
)

/** Signed lamports (PnL may be negative): JSON integer or decimal string, decoded to bigint. */
export const SignedLamports = Schema.transform(Schema.Union(SafeInt, SignedDecimal), Schema.BigIntFromSelf, {
  strict: true,
  decode: (input) => BigInt(input),
  encode: (value) =>
    value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(value) : value.toString()
}).annotations({
  identifier: "SignedLamports",
  message: () => ({ message: "must be an integer: a decimal string, or a JSON number within ±9007199254740991", override: true })
})

const IsoTimestamp = Schema.String.pipe(
  Schema.filter((value) => !Number.isNaN(Date.parse(value)), { message: () => "must be an ISO 8601 timestamp" })
)

export const MAX_BACKTEST_STEPS = 10_000
export const DEFAULT_MINIMUM_PASS_RATE = 1

export const BacktestStep = Schema.Struct({
  type: TransactionType,
  protocol: ProtocolId,
  intent: Schema.optionalWith(IntentObject, { exact: true, default: () => ({}) }),
  timestamp: IsoTimestamp,
  simulatedPnlLamports: Schema.optionalWith(SignedLamports, { exact: true, default: () => 0n })
})
export type BacktestStep = typeof BacktestStep.Type

/** A backtest with no steps proves nothing, so it is refused; the pass rate defaults to 1 (every step). */
export const BacktestBody = Schema.Struct({
  walletId: Uuid,
  name: Label,
  steps: Schema.Array(BacktestStep).pipe(
    Schema.minItems(1, { message: () => `must hold 1-${MAX_BACKTEST_STEPS} steps` }),
    Schema.maxItems(MAX_BACKTEST_STEPS, { message: () => `must hold 1-${MAX_BACKTEST_STEPS} steps` })
  ),
  minimumPassRate: Schema.optionalWith(
    Schema.Number.pipe(Schema.between(0, 1, { message: () => "must be between 0 and 1" })),
    { exact: true, default: () => DEFAULT_MINIMUM_PASS_RATE }
  )
})
export type BacktestBody = typeof BacktestBody.Type

export const BacktestRun = Schema.Struct({
  runId: Uuid,
  walletId: Uuid,
  name: Schema.String,
  totalSteps: Schema.Number,
  passedSteps: Schema.Number,
  failedSteps: Schema.Number,
  passRate: Schema.Number,
  minimumPassRate: Schema.Number,
  totalPnlLamports: SignedLamports,
  passed: Schema.Boolean,
  createdAt: Timestamp
})
export type BacktestRun = typeof BacktestRun.Type

export const PaperExecuteBody = Schema.Struct({
  agentId: Uuid,
  walletId: Uuid,
  type: TransactionType,
  protocol: ProtocolId,
  intent: Schema.optionalWith(IntentObject, { exact: true, default: () => ({}) })
})
export type PaperExecuteBody = typeof PaperExecuteBody.Type

export const PaperTrade = Schema.Struct({
  id: Uuid,
  agentId: Uuid,
  walletId: Uuid,
  type: TransactionType,
  protocol: ProtocolId,
  intent: IntentObject,
  /** What the intent would have done (the validation and build outcome), when known. */
  outcome: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  createdAt: Timestamp
})
export type PaperTrade = typeof PaperTrade.Type

export const MAX_PAPER_TRADES_PER_AGENT = 500
