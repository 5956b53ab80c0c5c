/**
 * The transaction engine's entry points: create (row + outbox job in ONE SQL transaction, idempotent
 * per tenant, wallet and key), read, approve, reject, retry, proof, replay and the wallet's lists.
 */
import { SqlClient } from "@effect/sql"
import { Cause, Effect, Schema } from "effect"
import { againOnConnectionLoss, isConnectionLoss } from "../db/connectionLoss.js"
import { newRowId } from "../db/rowIds.js"
import type { ApproveBody } from "../../schemas/approval.js"
import { Conflict, InvalidState, NotFound, PolicyViolation, ValidationError } from "../../schemas/errors.js"
import { approvalEventMetadata, approvedAlreadyBy, recordApproval, rejectedAlreadyBy } from "./approvals/approvalRecord.js"
import { WalletQuorums } from "./approvals/walletQuorums.js"
import type { TransactionType } from "../../schemas/intent.js"
import { AgentBudgetOnRetry, budgetExceededMessage } from "./agentPorts.js"
import { intentSpendLamports } from "./intentSpend.js"
import { actingAgent, type CallerInfo } from "../gateway/caller.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { auditEventMetric } from "../audit/metricNames.js"
import { PolicyEngine } from "../policy/policyEngine.js"
import { WalletRepo } from "../wallet/walletRepo.js"
import { SigningFreezes } from "../wallet/signingFreezes.js"
import { freezeNotice } from "../../schemas/freeze.js"
import { treasuryRefusal } from "./treasuryRights.js"
import type { AcceptedRequest } from "./acceptIntent.js"
import type { PageRequest } from "../db/keysetPage.js"
import { makeStatementBatch } from "../db/statementBatch.js"
import { approvalExpired, makeApprovalExpiry } from "./approvalExpiry.js"
import { earlierAttempts, retryHistoryEntry } from "./earlierAttempt.js"
import { insertTransactionsWithJobs, type NewTransaction } from "./insertTransaction.js"
import { Outbox } from "./outbox.js"
import { Settlement } from "./settlement.js"
import { canonicalJson, sha256Hex } from "./proof.js"
import { StageEvents, transitionEventOf } from "./stageEvents.js"
import { TransactionRepo } from "./transactionRepo.js"
import { toTransactionRecord, TransactionRow } from "./transactionRow.js"
import { decodeRows, JsonObject } from "../db/rowDecoding.js"
import { idempotencyKeyTaken } from "../gateway/idempotencyKeyRefusal.js"

/** How long a retry waits for the chain to say whether an earlier signature landed (past it: left unresolved, never built again). */
const REBUILD_CHECK_TIMEOUT = "5 seconds"

/** Failures a client may retry ([n7]): never policy refusals, never a success. */
const RETRYABLE_CODES = new Set(["PIPELINE_ERROR", "CONFIRMATION_FAILED"])

/** A failed transaction whose failure a retry may try again (never a policy refusal). */
const isRetryable = (row: TransactionRow) => row.status === "failed" && row.error_code !== null && RETRYABLE_CODES.has(row.error_code)

/** What a retry answers: the record it moved (retried, adopted, unresolved) or left as it was (unchanged). */
type RetryOutcome = { readonly outcome: "retried" | "adopted" | "unresolved" | "unchanged"; readonly row: TransactionRow }
type RetryError = InvalidState | NotFound | PolicyViolation

/** How many times a retry that lost a race to another retry (whose attempt failed again meanwhile) tries again. */
const RETRY_RACES = 3

/** How long the repeat of a lost insert waits for a first insert still running (finishLostInsert). */
const LOST_INSERT_WAIT = "5s"

/** A transaction locked for an approval: where it is and its approval. */
const ApprovalStateRow = Schema.Struct({ status: Schema.String, approval: Schema.NullOr(JsonObject) })

export class TransactionService extends Effect.Service<TransactionService>()("TransactionService", {
  dependencies: [TransactionRepo.Default, WalletRepo.Default, WalletQuorums.Default, PolicyEngine.Default, SigningFreezes.Default, Outbox.Default, Settlement.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* TransactionRepo
    const wallets = yield* WalletRepo
    const outbox = yield* Outbox
    const metrics = yield* MetricCounters
    const events = yield* StageEvents
    const policy = yield* PolicyEngine
    const budgets = yield* AgentBudgetOnRetry
    const settlement = yield* Settlement
    const expiry = yield* makeApprovalExpiry
    const quorums = yield* WalletQuorums
    const freezes = yield* SigningFreezes

    /** The 403 of a request in a frozen scope, naming the freeze (docs/decisions/freeze.md). */
    const frozenRefusal = (freezeId: string) =>
      Effect.map(freezes.find(freezeId, null), (freeze) => {
        const message = freeze === undefined ? `frozen: freeze ${freezeId}` : freezeNotice(freeze)
        return new PolicyViolation({ message, reasons: [message] })
      })

    // Concurrent creates share one insert statement (statementBatch.ts).
    const inserts = makeStatementBatch(
      (batch: ReadonlyArray<NewTransaction>) => insertTransactionsWithJobs(sql, batch, outbox.crossProcessNotify, outbox.leaseMs),
      { maxBatch: 64, repeatable: false }
    )

    const publish = (row: TransactionRow, message?: string) => events.publish(transitionEventOf(row, message))

    /** A transaction the caller may see: its tenant's, and for an agent's credential only that agent's. */
    const mustFind = (caller: CallerInfo, txId: string) =>
      Effect.flatMap(repo.find(txId, caller.readTenant), (row) => {
        const self = actingAgent(caller)
        return row === undefined || (self !== null && row.agent_id !== self)
          ? Effect.fail(new NotFound({ resource: "transaction", id: txId }))
          : Effect.succeed(row)
      })

    /** The record of a transaction the caller may see (GET): the record's columns only. */
    const getRecord = (caller: CallerInfo, txId: string) =>
      Effect.flatMap(repo.findRecord(txId, caller.readTenant), (row) => {
        const self = actingAgent(caller)
        return row === undefined || (self !== null && row.agent_id !== self)
          ? Effect.fail(new NotFound({ resource: "transaction", id: txId }))
          : Effect.succeed(row)
      })

    /** A lost insert sent again, alone, waiting at most LOST_INSERT_WAIT for locks (finishLostInsert). */
    const insertAgain = (input: NewTransaction) =>
      sql.withTransaction(
        Effect.zipRight(sql`SET LOCAL lock_timeout = ${sql.literal(`'${LOST_INSERT_WAIT}'`)}`, insertTransactionsWithJobs(sql, [input], outbox.crossProcessNotify, outbox.leaseMs))
      ).pipe(Effect.map((outcomes) => outcomes[0]!))

    /**
     * The outcome of an insert whose connection was lost before its answer came. PostgreSQL may have committed
     * it, rolled it back, or be running it still (a reset between the service and a proxy leaves the server's
     * side at work). The service made the transaction's id, which is the row's key, so the create is finished
     * here exactly once: the row read on a new connection is the answer; not found, the same insert is sent
     * again. A first insert still running and this one cannot both write the row: this one waits for it and
     * then meets it (a conflict, and the row is read), or writes it first and the first writes nothing. Any other
     * answer of the repeat (a freeze or an archived wallet meanwhile) leaves the first insert's fate unknown, and
     * the 503 of the lost connection stands ("may have been applied"), as it does while the database stays away.
     * The repeat is a statement of its own (no other create should wait with it), and it waits for a first insert
     * at most LOST_INSERT_WAIT (a first one whose server side is stuck sending its answer to a dead socket holds its
     * row until TCP gives up): past that, the 503 too. A first insert that claimed its job for this process's workers
     * left it leased to nobody: once the first insert's fate is known, that lease is given back (the job is pending
     * at once), and the repeat claims nothing. (A first insert that commits after the 503 leaves its job to the
     * lease's expiry.)
     */
    const finishLostInsert = (input: NewTransaction, readTenant: string | null, lost: Cause.Cause<never>) =>
      Effect.gen(function* () {
        const found = yield* repo.find(input.id, readTenant)
        if (found !== undefined) return { _tag: "Inserted" as const, row: found }
        const again = yield* insertAgain({ ...input, leaseId: null })
        if (again._tag === "Inserted") return again
        if (again._tag !== "Conflict") return undefined
        // The id's row, or (its key taken by another create) the Conflict the caller answers with that one's.
        const row = yield* repo.find(input.id, readTenant)
        return row === undefined ? again : { _tag: "Inserted" as const, row }
      }).pipe(
        againOnConnectionLoss,
        Effect.ensuring(input.leaseId === null ? Effect.void : Effect.forkDaemon(outbox.giveBack(input.leaseId))),
        Effect.catchAllCause(() => Effect.succeed(undefined)),
        Effect.flatMap((outcome) => (outcome === undefined ? Effect.failCause(lost) : Effect.succeed(outcome)))
      )

    /**
     * Creates the transaction; with `ungovernedOnly`, only when no agent acts through the wallet (the
     * insert checks it in its own statement), else answers "governed" and writes nothing.
     */
    const insertAndAnswer = (caller: CallerInfo, request: AcceptedRequest, options: { readonly agentId?: string; readonly ungovernedOnly: boolean }) =>
      Effect.flatMap(outbox.reserveHandoff, (reserved) =>
        reserved === undefined
          ? insertUnderLease(caller, request, options, null)
          : insertUnderLease(caller, request, options, reserved).pipe(
            // A job claimed at its insert reaches the workers even when the caller goes away meanwhile (else it would
            // wait out its lease); the idle worker it counted on is free again unless it was handed over.
            Effect.uninterruptible,
            Effect.ensuring(outbox.releaseHandoff(reserved))
          )
      )

    /** `leaseId`: the job is claimed at its insert for this process's workers (null: a pending job). */
    const insertUnderLease = (
      caller: CallerInfo, request: AcceptedRequest, options: { readonly agentId?: string; readonly ungovernedOnly: boolean }, leaseId: string | null
    ) =>
      Effect.gen(function* () {
        // Whatever path a treasury intent takes, it needs the rights of /api/v1/treasury/* (treasuryRights.ts).
        const refusal = treasuryRefusal(caller, request.type)
        if (refusal !== undefined) return yield* Effect.fail(refusal)
        const agentId = options.agentId ?? request.agentId ?? null
        const stored = { walletId: request.walletId, ...(agentId === null ? {} : { agentId }), type: request.type, protocol: request.protocol, gasless: request.gasless, requireApproval: request.requireApproval, intent: request.intent }
        const requestHash = sha256Hex(canonicalJson(stored))
        const input: NewTransaction = {
          id: newRowId(), walletId: request.walletId, walletTenant: caller.readTenant === null ? null : caller.tenant, agentId,
          type: request.type, protocol: request.protocol, intent: request.intent, request: stored, requestHash,
          gasless: request.gasless, requireApproval: request.requireApproval, idempotencyKey: request.idempotencyKey ?? null, traceId: caller.traceId,
          ungovernedOnly: options.ungovernedOnly, leaseId
        }
        const outcome = yield* inserts.submit(input).pipe(
          Effect.catchAllCause((cause) => (isConnectionLoss(cause) ? finishLostInsert(input, caller.readTenant, cause) : Effect.failCause(cause)))
        )
        switch (outcome._tag) {
          case "Governed":
            return "governed" as const
          case "WalletNotFound":
            return yield* Effect.fail(new NotFound({ resource: "wallet", id: request.walletId }))
          case "AgentNotFound":
            return yield* Effect.fail(new NotFound({ resource: "agent", id: agentId ?? "" }))
          case "Frozen":
            return yield* Effect.fail(yield* frozenRefusal(outcome.freezeId))
          case "WalletNotActive":
            return yield* Effect.fail(new ValidationError({ message: `walletId: wallet ${request.walletId} is ${outcome.status}`, field: "walletId" }))
          case "Conflict": {
            // The idempotency key was used before (or by a concurrent create): answer with the original.
            const winner = yield* repo.findByIdempotencyKey(outcome.tenantId, request.walletId, request.idempotencyKey ?? "")
            if (winner === undefined) return yield* Effect.die(new Error("idempotency conflict without a winner"))
            return yield* sameRequestOrRefuse(winner, requestHash)
          }
          case "Inserted":
            // Its insert statement wrote the transaction.created audit event (spec: Events rule 1).
            yield* metrics.increment(auditEventMetric("transaction.created"))
            // Found after a lost answer, a worker may have moved it on already (and published that).
            if (outcome.row.status === "pending" && outcome.row.stage === "validation") yield* publish(outcome.row, "accepted")
            // Its job claimed at the insert goes to this process's workers in memory; a pending one rings for them.
            yield* outcome.handed === undefined ? outbox.notify : outbox.handOver(outcome.handed)
            return { row: outcome.row, created: true }
        }
      })

    const create = (caller: CallerInfo, request: AcceptedRequest, options: { agentId?: string } = {}) =>
      Effect.flatMap(insertAndAnswer(caller, request, { ...options, ungovernedOnly: false }), (created) =>
        created === "governed" ? Effect.die(new Error("an unconditional create answered governed")) : Effect.succeed(created)
      )

    /** A spend that names no agent: created when no agent acts through the wallet, else undefined (nothing written). */
    const createIfUngoverned = (caller: CallerInfo, request: AcceptedRequest) =>
      Effect.map(insertAndAnswer(caller, request, { ungovernedOnly: true }), (created) => (created === "governed" ? undefined : created))

    const sameRequestOrRefuse = (existing: TransactionRow, requestHash: string) =>
      existing.request_hash === requestHash
        ? Effect.succeed({ row: existing, created: false })
        : Effect.fail(idempotencyKeyTaken(existing.idempotency_key ?? "", { resource: "transaction", id: existing.id }))

    const notAwaiting = (txId: string, status: string) =>
      new InvalidState({ message: `transaction ${txId} is ${status}, not awaiting approval`, currentState: status })

    /**
     * Approve: under the row's lock, the approval must still be waiting and within its time ([n8]; at
     * or after `expiresAt` the transaction fails as expired instead and the approve is refused), the
     * preview the approver saw must be the current one (`previewHash`, else 409). Below the quorum the
     * approval is recorded and it keeps waiting; the Nth distinct approval releases signing: that
     * transition, the outbox job and the decision marked approved (its spend was reserved at the gate)
     * commit together (docs/decisions/approvals.md). An operator approving again what they approved (a
     * retry after a lost answer) gets the transaction as it stands, and nothing changes.
     */
    const approve = (caller: CallerInfo, txId: string, body: ApproveBody = {}) =>
      Effect.gen(function* () {
        const row = yield* mustFind(caller, txId)
        const repeated = (current: typeof row) => approvedAlreadyBy(current.approval, caller.keyId, body.previewHash)
        if (row.status !== "approval_gate") return repeated(row) ? row : yield* Effect.fail(notAwaiting(txId, row.status))
        const outcome = yield* sql.withTransaction(
          Effect.gen(function* () {
            const [locked] = yield* sql`
              SELECT status, approval FROM transactions WHERE id = ${txId} FOR UPDATE
            `.pipe(decodeRows("transactions", ApprovalStateRow))
            if (locked === undefined || locked.status !== "approval_gate") return { _tag: "NotWaiting", status: locked?.status ?? "changed" } as const
            const now = new Date()
            if (approvalExpired(locked.approval, now)) {
              const expired = yield* expiry.expire(txId, locked.approval)
              return { _tag: "Expired", row: expired, expiresAt: String(locked.approval?.expiresAt ?? "unknown") } as const
            }
            const shown = locked.approval?.previewHash
            if (body.previewHash !== undefined && body.previewHash !== shown) return { _tag: "PreviewChanged", current: String(shown ?? "none") } as const
            const recorded = recordApproval(locked.approval, caller.keyId, now, yield* quorums.required(row.wallet_id, row.tenant_id))
            if (recorded.kind === "duplicate") return { _tag: "Duplicate", ...recorded } as const
            if (recorded.kind === "recorded") {
              const waiting = yield* repo.transition(txId, {
                from: ["approval_gate"], to: "approval_gate", stage: "policy",
                message: `approval ${recorded.approvals} of ${recorded.required} by ${caller.keyId}`, fields: { approval: recorded.approval },
                eventType: "transaction.approval_recorded", eventMetadata: { by: caller.keyId, ...approvalEventMetadata(recorded.approval) }
              })
              return waiting === undefined ? ({ _tag: "NotWaiting", status: "changed" } as const) : ({ _tag: "Recorded", row: waiting } as const)
            }
            const updated = yield* repo.transition(txId, {
              from: ["approval_gate"], to: "signing", stage: "sign",
              message: recorded.required > 1 ? `approved (${recorded.approvals} of ${recorded.required})` : "approved",
              fields: { approval: recorded.approval }, eventType: "transaction.approved", eventMetadata: { by: caller.keyId, ...approvalEventMetadata(recorded.approval) }
            })
            if (updated === undefined) return { _tag: "NotWaiting", status: "changed" } as const
            yield* outbox.enqueueInTransaction(txId, "approve")
            yield* policy.onApproved(txId)
            return { _tag: "Approved", row: updated } as const
          })
        ).pipe(Effect.orDie)
        switch (outcome._tag) {
          case "NotWaiting":
          case "Duplicate": {
            // Moved on since the first read (perhaps by this operator's own earlier approve), or approved already.
            const current = yield* mustFind(caller, txId)
            if (repeated(current)) return current
            if (current.status !== "approval_gate") return yield* Effect.fail(notAwaiting(txId, current.status))
            return yield* Effect.fail(new Conflict({ message: `transaction ${txId}: its approval changed while this approve ran; read it again`, currentState: "approval_gate" }))
          }
          case "Expired":
            if (outcome.row !== undefined) yield* expiry.announce(outcome.row)
            return yield* Effect.fail(
              new InvalidState({ message: `transaction ${txId}: the approval expired at ${outcome.expiresAt}; it can no longer be approved`, currentState: "failed" })
            )
          case "PreviewChanged":
            return yield* Effect.fail(new Conflict({
              message: `previewHash: the preview of transaction ${txId} changed since it was shown (now ${outcome.current}); read it again and approve what it does now`,
              currentState: "approval_gate"
            }))
          case "Recorded":
            yield* metrics.increment(auditEventMetric("transaction.approval_recorded"))
            yield* publish(outcome.row, "approval recorded")
            return outcome.row
          case "Approved":
            yield* metrics.increment(auditEventMetric("transaction.approved"))
            yield* outbox.notify
            yield* publish(outcome.row, "approved")
            return outcome.row
        }
      })

    /**
     * Reject: the transaction fails with the reason, and its spend reserved at the gate is given back, together.
     * The operator who rejected it rejecting again (a retry after a lost answer) gets the failed transaction.
     */
    const reject = (caller: CallerInfo, txId: string, reason: string | undefined) =>
      Effect.gen(function* () {
        const row = yield* mustFind(caller, txId)
        if (row.status !== "approval_gate") return rejectedAlreadyBy(row.approval, caller.keyId) ? row : yield* Effect.fail(notAwaiting(txId, row.status))
        const why = reason ?? "no reason given"
        const approval = { ...(row.approval ?? {}), status: "rejected", decidedAt: new Date().toISOString(), decidedBy: caller.keyId, reason: why }
        const moved = yield* sql.withTransaction(
          Effect.gen(function* () {
            const updated = yield* repo.transition(txId, {
              from: ["approval_gate"], to: "failed", stage: "policy", message: `rejected: ${why}`,
              fields: { approval, failedAt: "policy", errorCode: "POLICY_VIOLATION", error: `rejected by approver: ${why}` },
              eventType: "transaction.failed"
            })
            if (updated !== undefined) yield* policy.releaseSpend(txId)
            return updated
          })
        ).pipe(Effect.orDie)
        if (moved === undefined) {
          const current = yield* mustFind(caller, txId)
          if (rejectedAlreadyBy(current.approval, caller.keyId)) return current
          if (current.status !== "approval_gate") return yield* Effect.fail(notAwaiting(txId, current.status))
          // Left the gate and reached it again (a retried attempt) while this ran: not the approval the caller read.
          return yield* Effect.fail(new Conflict({ message: `transaction ${txId}: its approval changed while this reject ran; read it again`, currentState: "approval_gate" }))
        }
        yield* metrics.increment(auditEventMetric("transaction.failed"))
        yield* publish(moved, "rejected")
        return moved
      })

    /** The agent budget a retry reserves again; a refusal rolls the whole retry back. */
    const reserveAgentBudgetAgain = (row: TransactionRow, traceId: string | undefined) =>
      Effect.gen(function* () {
        if (row.agent_id === null) return
        const lamports = intentSpendLamports(row.type as TransactionType, row.intent)
        const outcome = yield* budgets.reserveAgain(row.agent_id, row.id, lamports, traceId)
        if (outcome?._tag === "Exceeded") {
          const message = budgetExceededMessage(outcome.remainingLamports, outcome.requiredLamports)
          return yield* Effect.fail(new PolicyViolation({ message, reasons: [message] }))
        }
      })

    /** What a retry of `row` answers without changing it: submitting (400, nothing changed), not failed or not retryable (400); undefined when it may be retried. */
    const refusalOf = (row: TransactionRow) => {
      if (row.status === "submitting") return Effect.succeed({ outcome: "unchanged", row } as const)
      if (isRetryable(row)) return undefined
      return Effect.fail(
        new InvalidState({
          message: row.status === "failed"
            ? `transaction ${row.id} failed with ${row.error_code} at ${row.failed_at}; only PIPELINE_ERROR and CONFIRMATION_FAILED failures can be retried`
            : `transaction ${row.id} is ${row.status}; only failed transactions can be retried`,
          currentState: row.status
        })
      )
    }

    /**
     * A retry that lost a race (another retry, or the resolver, moved the record after this one read it) answers
     * what a retry sent just after would: the record as it is now, unchanged; and when it is retryable again
     * (the other retry's attempt failed meanwhile), it is retried as such a later retry would retry it.
     */
    const answerLost = (caller: CallerInfo, txId: string, current: TransactionRow, racesLeft: number): Effect.Effect<RetryOutcome, RetryError> =>
      refusalOf(current) ?? (racesLeft > 0
        ? retryRound(caller, txId, racesLeft - 1)
        : Effect.fail(new InvalidState({ message: `transaction ${txId} was retried and failed again ${RETRY_RACES} times while this retry ran; send it again`, currentState: current.status })))

    const answerAsItIsNow = (caller: CallerInfo, txId: string, racesLeft: number) =>
      Effect.flatMap(mustFind(caller, txId), (current) => answerLost(caller, txId, current, racesLeft))

    /**
     * [n7] retry: a failed transaction with a retryable failure goes back to pending as a fresh attempt.
     * In one SQL transaction: the row's per-attempt columns are cleared (the earlier attempt moves into
     * the retry's history entry), the policy engine forgets the earlier decision and gives back its
     * spend (the next run decides afresh and counts again), the agent's budget is reserved again, and
     * the job is queued. Over budget: refused (403), nothing changes.
     */
    const retry = (caller: CallerInfo, txId: string) => retryRound(caller, txId, RETRY_RACES)

    /** One try; `racesLeft`: how many more a retry that lost its race to a retry whose attempt failed again may make. */
    const retryRound = (caller: CallerInfo, txId: string, racesLeft: number): Effect.Effect<RetryOutcome, RetryError> =>
      Effect.gen(function* () {
        const row = yield* mustFind(caller, txId)
        const refusal = refusalOf(row)
        if (refusal !== undefined) return yield* refusal
        // A frozen scope takes no new attempt (unfreezing is an operator act; then the retry may run).
        const freeze = yield* freezes.activeFor({ tenantId: row.tenant_id, walletId: row.wallet_id, agentId: row.agent_id })
        if (freeze !== undefined) return yield* Effect.fail(yield* frozenRefusal(freeze.id))
        // Nothing is built again while an earlier signature of the transaction could still land (issue 30).
        const context = yield* outbox.contextOf(txId)
        if (context !== undefined) {
          const verdict = yield* settlement.beforeRebuild(context, { wait: false, checkTimeout: REBUILD_CHECK_TIMEOUT }).pipe(
            Effect.catchAll((error) => Effect.succeed({ _tag: "Open", until: null, answered: false, error: error.message } as const))
          )
          if (verdict._tag === "Adopted") {
            // Undefined: another settled it first (a retry sent at the same time, or the resolver, whose sweep finds
            // the adopted transaction at submitting): the landed signature was adopted all the same; answered as it is now.
            return { outcome: "adopted", row: verdict.row ?? (yield* mustFind(caller, txId)) } as const
          }
          if (verdict._tag === "Open") {
            const why = verdict.answered
              ? `a signature of an earlier attempt may still land${verdict.until === null ? "" : ` until block height ${verdict.until}`}`
              : "the chain did not answer whether a signature of an earlier attempt landed"
            const reopened = yield* settlement.reopenUnresolved(row, why)
            if (reopened === undefined) return yield* answerAsItIsNow(caller, txId, racesLeft)
            return { outcome: "unresolved", row: reopened } as const
          }
        }
        const won = yield* sql.withTransaction(
          Effect.gen(function* () {
            // Locked by id alone: when it is no longer retryable, the answer is the record as this lock found it
            // (a second read after the lock could find it failed again and retryable, with nothing to say).
            const [locked] = yield* sql`SELECT * FROM transactions WHERE id = ${txId} FOR UPDATE`.pipe(decodeRows("transactions", TransactionRow))
            if (locked === undefined || !isRetryable(locked)) return { _tag: "Lost", row: locked } as const
            const entry = JSON.stringify([retryHistoryEntry(locked, new Date())])
            const [moved] = yield* sql`
              UPDATE transactions SET status = 'pending', stage = 'validation', failed_at = NULL, error_code = NULL, error = NULL,
                signature = NULL, signed_transaction = NULL, message_base64 = NULL, extra_signatures = NULL, last_valid_block_height = NULL,
                policy_decision = NULL, simulation = NULL, execution_proof = NULL, delta_guard = NULL, approval = NULL,
                history = history || ${entry}::jsonb, updated_at = now()
              WHERE id = ${txId}
              RETURNING *
            `.pipe(decodeRows("transactions", TransactionRow))
            yield* policy.startOver(txId)
            yield* reserveAgentBudgetAgain(locked, caller.traceId)
            yield* outbox.enqueueInTransaction(txId, "retry")
            return { _tag: "Moved", row: moved } as const
          })
        ).pipe(Effect.catchTag("SqlError", Effect.die))
        // (no row: it is gone, and the read answers so)
        if (won.row === undefined) return yield* answerAsItIsNow(caller, txId, racesLeft)
        if (won._tag === "Lost") return yield* answerLost(caller, txId, won.row, racesLeft)
        const moved = won.row
        yield* outbox.notify
        yield* publish(moved, "retry requested")
        return { outcome: "retried", row: moved } as const
      })

    const replay = (caller: CallerInfo, txId: string) =>
      Effect.map(mustFind(caller, txId), (row) => ({
        txId: row.id,
        request: row.request,
        policyDecision: row.policy_decision,
        simulation: row.simulation,
        proof: row.execution_proof,
        history: row.history,
        earlierAttempts: earlierAttempts(row.history)
      }))

    const proof = (caller: CallerInfo, txId: string) =>
      Effect.flatMap(mustFind(caller, txId), (row) =>
        row.execution_proof === null
          ? Effect.fail(new NotFound({ resource: "execution proof of transaction", id: txId }))
          : Effect.succeed(row.execution_proof)
      )

    const listByWallet = (caller: CallerInfo, walletId: string, options: PageRequest & { status?: string }) =>
      Effect.gen(function* () {
        const wallet = yield* wallets.find(walletId, caller.readTenant)
        if (wallet === undefined) return yield* Effect.fail(new NotFound({ resource: "wallet", id: walletId }))
        const page = yield* repo.listByWallet(walletId, caller.readTenant, options)
        return { transactions: page.items.map(toTransactionRecord), ...page.info }
      })

    return { create, createIfUngoverned, get: getRecord, approve, reject, retry, replay, proof, listByWallet, publish }
  })
}) {}
