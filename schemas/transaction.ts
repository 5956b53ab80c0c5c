/**
 * Transactions: the create body, the record a client polls, its proof and replay
 * (spec: Transaction, Execution proof, Transactions endpoints; [n2] in docs/decisions/schemas.md).
 */
import * as Schema from "effect/Schema"
import { ApprovalQuorumFields } from "./approval.js"
import { TransactionEffect } from "./effect.js"
import { Amount, IdempotencyKey, Timestamp, Uuid } from "./common.js"
import { ErrorCodeSchema, FailedAtSchema } from "./envelope.js"
import { TransactionType } from "./intent.js"
import { PolicyDecision } from "./policy.js"
import { ProtocolId } from "./protocol.js"

export const TRANSACTION_STATUSES = [
  "pending",
  "simulating",
  "policy_eval",
  "approval_gate",
  "signing",
  "submitting",
  "confirmed",
  "failed"
] as const
export const TransactionStatus = Schema.Literal(...TRANSACTION_STATUSES).annotations({
  identifier: "TransactionStatus",
  message: () => `must be one of: ${TRANSACTION_STATUSES.join(", ")}`
})
export type TransactionStatus = typeof TransactionStatus.Type

export const TERMINAL_STATUSES = ["confirmed", "failed"] as const satisfies ReadonlyArray<TransactionStatus>
export const isTerminalStatus = (status: TransactionStatus): boolean =>
  (TERMINAL_STATUSES as ReadonlyArray<TransactionStatus>).includes(status)

/** `stage` uses the envelope's vocabulary (validation ... completed), so record and envelope agree. */
export const TransactionStage = FailedAtSchema
export type TransactionStage = typeof TransactionStage.Type

const IntentObject = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  message: () => ({ message: "must be a JSON object", override: true })
})

/**
 * Body of `POST /transactions`. `intent` is decoded by `type` afterwards (see intent.ts).
 * Input bodies use exact optionals (a field is absent or valid), so a bad value gets one message;
 * output records use `Schema.optional`, so service code may leave a field `undefined`.
 */
export const CreateTransactionBody = Schema.Struct({
  walletId: Uuid,
  agentId: Schema.optionalWith(Uuid, { exact: true }),
  type: TransactionType,
  protocol: ProtocolId,
  gasless: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false }),
  idempotencyKey: Schema.optionalWith(IdempotencyKey, { exact: true }),
  /** On-demand approval: stop at the approval gate even when policy allows. */
  requireApproval: Schema.optionalWith(Schema.Boolean, { exact: true, default: () => false }),
  intent: IntentObject
})
export type CreateTransactionBody = typeof CreateTransactionBody.Type

export const TxIdParams = Schema.Struct({ txId: Uuid })

export const DeltaGuard = Schema.Struct({
  ok: Schema.Boolean,
  expectedLamportsDelta: Schema.NullOr(Schema.Number),
  observedLamportsDelta: Schema.NullOr(Schema.Number),
  varianceBps: Schema.NullOr(Schema.Number),
  reason: Schema.optional(Schema.String),
  /** token flows of a swap (docs/decisions/swaps.md): each mint's observed change against its bound */
  tokens: Schema.optional(
    Schema.Array(
      Schema.Struct({
        mint: Schema.String,
        observedDelta: Schema.String,
        expectedDelta: Schema.optional(Schema.String),
        minimumDelta: Schema.optional(Schema.String),
        ok: Schema.Boolean
      })
    )
  )
})
export type DeltaGuard = typeof DeltaGuard.Type

const Sha256Hex = Schema.String.pipe(Schema.pattern(/^[0-9a-f]{64}$/, { message: () => "must be a SHA-256 hex digest" }))

export const ExecutionProof = Schema.Struct({
  txId: Uuid,
  walletId: Uuid,
  agentId: Schema.optional(Uuid),
  intentHash: Sha256Hex,
  policyHash: Sha256Hex,
  simulationHash: Sha256Hex,
  signature: Schema.optional(Schema.String),
  proofHash: Sha256Hex,
  createdAt: Timestamp
})
export type ExecutionProof = typeof ExecutionProof.Type

/** The decision as a transaction records it: `pauseAgent` says it also paused the agent (a portfolio breach). */
export const RecordedPolicyDecision = Schema.Struct({ ...PolicyDecision.fields, pauseAgent: Schema.optional(Schema.Boolean) })

export const ApprovalStatus = Schema.Literal("pending", "approved", "rejected", "expired")
export type ApprovalStatus = typeof ApprovalStatus.Type

/** The approval gate's record on a transaction that stopped there. */
export const TransactionApproval = Schema.Struct({
  status: ApprovalStatus,
  requestedAt: Timestamp,
  expiresAt: Timestamp,
  decidedAt: Schema.optional(Timestamp),
  decidedBy: Schema.optional(Schema.String),
  reason: Schema.optional(Schema.String),
  // issue 31: the preview and its hash, and the quorum (schemas/approval.ts)
  ...ApprovalQuorumFields
})
export type TransactionApproval = typeof TransactionApproval.Type

/** [n7] A retried transaction's earlier attempt, kept on the retry's history entry and in `/replay`. */
export const EarlierAttempt = Schema.Struct({
  attempt: Schema.Number,
  policyDecision: Schema.NullOr(RecordedPolicyDecision),
  failedAt: Schema.NullOr(FailedAtSchema),
  errorCode: Schema.NullOr(ErrorCodeSchema),
  error: Schema.NullOr(Schema.String),
  signature: Schema.NullOr(Schema.String),
  approval: Schema.NullOr(TransactionApproval),
  executionProof: Schema.NullOr(ExecutionProof)
})

export const HistoryEntry = Schema.Struct({
  status: TransactionStatus,
  stage: TransactionStage,
  at: Timestamp,
  message: Schema.optional(Schema.String),
  earlierAttempt: Schema.optional(EarlierAttempt)
})
export type HistoryEntry = typeof HistoryEntry.Type

export const SimulationResult = Schema.Struct({
  ok: Schema.Boolean,
  logs: Schema.Array(Schema.String),
  unitsConsumed: Schema.optional(Schema.Number),
  error: Schema.optional(Schema.String),
  /** The transaction's whole simulated effect on the wallet, as policy judged it (schemas/effect.ts; amounts as strings). */
  effect: Schema.optional(Schema.encodedSchema(TransactionEffect).annotations({ identifier: "TransactionEffect" })),
  /** Why the effect could not be read (the transaction was then refused at policy). */
  effectError: Schema.optional(Schema.String)
})
export type SimulationResult = typeof SimulationResult.Type

/** Records of POST /wallets/<id>/sign carry the signing as their type and `wallet` as protocol (not an intent's). */
export const SignOnlyType = Schema.Literal("sign_transaction", "sign_message")
export const SignOnlyProtocol = Schema.Literal("wallet")

export const Transaction = Schema.Struct({
  id: Uuid,
  walletId: Uuid,
  agentId: Schema.optional(Uuid),
  type: Schema.Union(TransactionType, SignOnlyType),
  protocol: Schema.Union(ProtocolId, SignOnlyProtocol),
  /** The intent as accepted (decoded and re-encoded, so defaults are filled in). */
  intent: IntentObject,
  gasless: Schema.Boolean,
  idempotencyKey: Schema.optional(Schema.String),
  status: TransactionStatus,
  stage: TransactionStage,
  failedAt: Schema.NullOr(FailedAtSchema),
  errorCode: Schema.NullOr(ErrorCodeSchema),
  error: Schema.optional(Schema.String),
  signature: Schema.optional(Schema.String),
  policyDecision: Schema.optional(RecordedPolicyDecision),
  awaitingApproval: Schema.Boolean,
  approval: Schema.optional(TransactionApproval),
  executionProof: Schema.optional(ExecutionProof),
  deltaGuard: Schema.optional(DeltaGuard),
  preBalanceLamports: Schema.optional(Amount),
  postBalanceLamports: Schema.optional(Amount),
  /** Filled for read-only intents. */
  result: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.Unknown })),
  /** Outbox attempts so far (a retry adds one). */
  attempts: Schema.Number,
  history: Schema.Array(HistoryEntry),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  confirmedAt: Schema.optional(Timestamp)
})
export type Transaction = typeof Transaction.Type
export type TransactionEncoded = typeof Transaction.Encoded

export const TransactionList = Schema.Struct({ transactions: Schema.Array(Transaction) })

export const Replay = Schema.Struct({
  txId: Uuid,
  request: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  policyDecision: Schema.NullOr(RecordedPolicyDecision),
  simulation: Schema.NullOr(SimulationResult),
  proof: Schema.NullOr(ExecutionProof),
  history: Schema.Array(HistoryEntry),
  /** [n7] Attempts a retry replaced, oldest first (each also on its retry's history entry). */
  earlierAttempts: Schema.Array(EarlierAttempt)
})
export type Replay = typeof Replay.Type

/** Body of `POST /transactions/<txId>/reject` (the spec shows none; a reason is optional). */
export const RejectBody = Schema.Struct({
  reason: Schema.optionalWith(
    Schema.String.pipe(
      Schema.minLength(1, { message: () => "must be 1-256 characters" }),
      Schema.maxLength(256, { message: () => "must be 1-256 characters" })
    ),
    { exact: true }
  )
})
export type RejectBody = typeof RejectBody.Type
