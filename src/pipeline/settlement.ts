/**
 * Never pay twice (issue 30): what happens to a transaction once its signed bytes may have left the
 * service is decided by the chain, never by a give-up or a timeout.
 * - Landed: confirmed with the usual post-checks (balances, delta guard, positions, proof), or failed
 *   on chain (only the fee moved: its daily spend and agent budget are given back).
 * - Not landed, proven (chain/landing.ts: the chain's block height is past the blockhash's last valid
 *   height and a trusted read finds nothing): failed "not landed: blockhash expired at height H", its
 *   spend and budget given back.
 * - Otherwise it stays `submitting`; when the outbox gave up, visibly unresolved (`error` says why and
 *   until which block height it can land), and the settlement resolver (actors/settlementResolver.ts)
 *   settles it once the RPC answers.
 * From signing on, the bytes are taken to have possibly left (the signature is recorded in the signing
 * transition; a durable "sent" mark would cost a statement per transaction on the hot path).
 */
import { Duration, Effect, Option } from "effect"
import { typeFactsOf } from "../protocols/registry.js"
import { SignatureLanding, type Landing, type LandingCandidate } from "../chain/landing.js"
import { PolicyEngine } from "../policy/policyEngine.js"
import { accountIndexOf, viewMessage } from "../protocols/messageView.js"
import { ProtocolPrograms } from "../protocols/protocolPrograms.js"
import { X402PaymentRepo } from "../protocols/x402/paymentRepo.js"
import { AgentBudgetRelease } from "./agentPorts.js"
import { earlierAttempts } from "./earlierAttempt.js"
import { type ConfirmOptions, PostChecks } from "./postChecks.js"
import type { RunContext } from "./runContext.js"
import { type LoggedSignature, SignatureLog, type SignatureVia } from "./signatureLog.js"
import { Terminal } from "./stageFailure.js"
import { StageTransitions } from "./stageTransitions.js"
import { UnresolvedTransactions } from "./unresolvedTransactions.js"
import type { LandedMeta, SubmissionOutcome } from "./submission.js"
import type { TransactionRow } from "./transactionRow.js"
import { x402PaidResult } from "./x402Result.js"

/** The attempt a row is on: 1, then one more per retry. */
export const attemptOf = (row: TransactionRow) => earlierAttempts(row.history).length + 1

/** How the row's transaction reaches the chain, which decides whose signature is its id. */
export const viaOf = (row: TransactionRow): SignatureVia => (typeFactsOf(row.type)?.performedBy === "x402Payment" ? "x402" : row.gasless ? "relay" : "rpc")

/** When the row was signed (its last entry at `submitting`): a relayed transaction is looked for from then on. */
const signedAt = (row: TransactionRow) => {
  const entry = [...row.history].reverse().find((h) => h.status === "submitting")
  return new Date(entry?.at ?? row.created_at)
}

/** How often a rebuild that waits asks the chain again. */
const REBUILD_POLL = Duration.seconds(1)

/** A candidate with the log entry that records its settlement (for a carried one: the wallet's own signature). */
interface Candidate {
  readonly candidate: LandingCandidate
  readonly entry: { readonly signature: string; readonly attempt: number; readonly via: SignatureVia; readonly lastValidBlockHeight: bigint | null }
}

export class Settlement extends Effect.Service<Settlement>()("Settlement", {
  dependencies: [
    SignatureLog.Default,
    UnresolvedTransactions.Default,
    X402PaymentRepo.Default,
    StageTransitions.Default,
    PostChecks.Default,
    PolicyEngine.Default,
    ProtocolPrograms.Default
  ],
  effect: Effect.gen(function* () {
    const { move, fail } = yield* StageTransitions
    const postChecks = yield* PostChecks
    const policy = yield* PolicyEngine
    const budgets = yield* AgentBudgetRelease
    const log = yield* SignatureLog
    const unresolvedSet = yield* UnresolvedTransactions
    const landing = yield* SignatureLanding
    const payments = yield* X402PaymentRepo
    const programs = yield* ProtocolPrograms

    /** A named reason from the program logs of a landed failure (our programs' errors, as their adapters name them), or nothing. */
    const onChainReason = (logs: ReadonlyArray<string>) => {
      const named = programs.describeFailure(logs)
      return named === undefined ? "" : `: ${named}`
    }

    /**
     * What of the row's current attempt may be on chain. The wallet-paid path: its signature. Gasless:
     * the relay's fee-payer signatures logged before sending (gaslessStages.ts); none logged (signed by an
     * earlier version), the transaction carrying the wallet's signature. x402: the settlement the resource server reported, else likewise. Nothing when the
     * attempt never signed (or an x402 payment never left).
     */
    const currentCandidates = (row: TransactionRow, walletPublicKey: string) =>
      Effect.gen(function* () {
        if (row.signature === null) return []
        const attempt = attemptOf(row)
        const via = viaOf(row)
        const lastValidBlockHeight = row.last_valid_block_height === null ? null : BigInt(row.last_valid_block_height)
        const known = (signature: string): Candidate => ({ candidate: { signature, lastValidBlockHeight }, entry: { signature, attempt, via, lastValidBlockHeight } })
        const carried: Candidate = {
          candidate: { carrier: { address: walletPublicKey, signature: row.signature, since: signedAt(row) }, lastValidBlockHeight },
          entry: { signature: row.signature, attempt, via, lastValidBlockHeight }
        }
        if (via === "rpc") return [known(row.signature)]
        if (via === "relay") {
          const relayed = (yield* log.ofTransaction(row.id)).filter((logged) => logged.attempt === attempt && logged.via === "relay")
          return relayed.length > 0 ? relayed.map((logged) => known(logged.signature)) : [carried]
        }
        const payment = yield* payments.find(row.id)
        if (payment === undefined || payment.status === "prepared") return []
        return payment.settlement_signature === null ? [carried] : [known(payment.settlement_signature)]
      })

    /** The wallet's spend of the transaction is given back: the chain says its amount never moved. */
    const releaseSpend = (row: TransactionRow, reason: string) =>
      Effect.gen(function* () {
        yield* policy.releaseSpend(row.id)
        if (row.agent_id !== null) yield* budgets.release(row.id, reason)
      })

    /**
     * Failed, with a proof, its spend given back (`reason` goes to the agent budget's audit event). Given
     * back first: a client that reads `failed` finds the spend released too. Only a fact about the chain
     * (or that nothing was sent) leads here, so no other outcome can follow a release; a crash between the
     * two leaves the transaction unresolved, and the resolver fails it again (releases are idempotent).
     */
    const failReleasing = (row: TransactionRow, failure: Terminal, reason: string) =>
      Effect.zipRight(releaseSpend(row, reason), fail(row, failure))

    /** How a transaction someone else paid the fee for is confirmed (its wallet is not account 0; the landed signature is not the wallet's). */
    const confirmOptions = (row: TransactionRow, walletPublicKey: string, signature: string) =>
      Effect.gen(function* () {
        const via = viaOf(row)
        if (via === "rpc") return {} satisfies ConfirmOptions
        const walletIndex = Math.max(accountIndexOf(viewMessage(Buffer.from(row.message_base64 ?? "", "base64")), walletPublicKey), 0)
        const payment = via === "x402" ? yield* payments.find(row.id) : undefined
        return { walletIndex, recordSignature: true, ...(payment === undefined ? {} : { result: x402PaidResult(payment, signature) }) } satisfies ConfirmOptions
      })

    /** Failed at `send` before anything of the attempt left the service (`row` at `submitting`): its spend given back. */
    const failUnsent = (row: TransactionRow, message: string) =>
      failReleasing(row, new Terminal({ failedAt: "send", errorCode: "PIPELINE_ERROR", stage: "send", message }), "nothing was sent")

    /** A landed transaction (`row` at `submitting`; `context` gives its wallet): confirmed, or failed on chain. */
    const landed = (row: TransactionRow, context: RunContext, signature: string, meta: LandedMeta) =>
      Effect.gen(function* () {
        if (meta.err !== null) {
          yield* log.settle(row.id, [{ signature, attempt: attemptOf(row), via: viaOf(row), lastValidBlockHeight: null }], "failed_on_chain", null)
          const message = `transaction failed on chain: ${JSON.stringify(meta.err)}${onChainReason(meta.logMessages ?? [])}`
          return yield* failReleasing(row, new Terminal({ failedAt: "confirm", errorCode: "CONFIRMATION_FAILED", message, stage: "confirm" }), "transaction failed on chain")
        }
        const options = yield* confirmOptions(row, context.publicKey, signature)
        return yield* postChecks.confirmed(row, signature, meta, context.deltaVarianceBpsThreshold, context.publicKey, options)
      })

    /** Proven not landed (`row` at `submitting`): failed, its spend given back. */
    const notLanded = (row: TransactionRow, entries: ReadonlyArray<Candidate["entry"]>, proof: { readonly lastValidBlockHeight: bigint; readonly blockHeight: bigint }) =>
      Effect.gen(function* () {
        yield* log.settle(row.id, entries, "not_landed", proof.blockHeight)
        const message = `not landed: blockhash expired at height ${proof.lastValidBlockHeight} (the chain is at block height ${proof.blockHeight}; nothing was spent)`
        return yield* failReleasing(row, new Terminal({ failedAt: "confirm", errorCode: "CONFIRMATION_FAILED", message, stage: "confirm" }), "transaction did not land")
      })

    /** The pipeline's own outcome of sending `signature` (wallet-paid or relayed) for `row` at `submitting`. */
    const submitted = (row: TransactionRow, context: RunContext, signature: string, outcome: SubmissionOutcome) =>
      outcome.landed
        ? landed(row, context, signature, outcome.meta)
        : notLanded(row, [{ signature, attempt: attemptOf(row), via: viaOf(row), lastValidBlockHeight: outcome.lastValidBlockHeight }], outcome)

    /**
     * The outbox gave up while the bytes may have left: the row stays `submitting`, with `error` saying
     * why and until which block height it can land; the resolver settles it.
     */
    const leaveUnresolved = (row: TransactionRow, why: string) => {
      const until = row.last_valid_block_height === null ? "" : ` until block height ${row.last_valid_block_height}`
      const message = `unresolved: ${why}; it may still land${until}; the service settles it against the chain (confirmed if it landed, else failed)`
      return Effect.zipRight(
        unresolvedSet.mark(row.id),
        move(row, { from: ["submitting"], to: "submitting", stage: "confirm", message, fields: { error: message }, eventType: "transaction.unresolved" })
      )
    }

    /** What the chain says of these candidates now. */
    const check = (candidates: ReadonlyArray<Candidate>) => landing.check<LandedMeta>(candidates.map((c) => c.candidate))

    /** Applies a landing to `row` at `submitting`; undefined while it is still open. */
    const apply = (row: TransactionRow, context: RunContext, candidates: ReadonlyArray<Candidate>, settled: Landing<LandedMeta>) =>
      settled._tag === "Landed"
        ? landed(row, context, settled.signature, settled.meta)
        : settled._tag === "NotLanded"
          ? notLanded(row, candidates.map((c) => c.entry), settled)
          : Effect.succeed(undefined)

    /**
     * The resolver's step for an unresolved transaction: settled against the chain now, or left as it
     * is (it can still land; the next sweep looks again). RPC failures are the caller's to log.
     */
    const settleNow = (context: RunContext) =>
      Effect.gen(function* () {
        const candidates = yield* currentCandidates(context.row, context.publicKey)
        if (candidates.length === 0) {
          // Nothing of this attempt left the service (an x402 payment never sent): it simply failed.
          return yield* failUnsent(context.row, "the outbox gave up before anything was sent")
        }
        return yield* apply(context.row, context, candidates, yield* check(candidates))
      })

    /**
     * Settles the row (at `submitting`) if the chain already decided (landed, or proven not landed), and
     * answers whether it did; an open outcome changes nothing.
     */
    const decideNow = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        const candidates = yield* currentCandidates(row, context.publicKey)
        const settled = yield* check(candidates)
        if (settled._tag === "Open") return { decided: false } as const
        return { decided: true, row: yield* apply(row, context, candidates, settled) } as const
      })

    /** Whether the chain settled an earlier attempt of the row as spending nothing (not landed, or failed on chain). */
    const earlierAttemptSpentNothing = (row: TransactionRow) =>
      Effect.map(log.ofTransaction(row.id), (logged) =>
        logged.some((entry) => entry.attempt === attemptOf(row) - 1 && (entry.outcome === "not_landed" || entry.outcome === "failed_on_chain"))
      )

    /**
     * What may still land of a failed transaction about to be built again (a retry): its current
     * attempt's signatures unless the chain already settled them, and every earlier one not settled.
     */
    const unsettledOf = (row: TransactionRow, walletPublicKey: string) =>
      Effect.gen(function* () {
        const logged = yield* log.ofTransaction(row.id)
        const attempt = attemptOf(row)
        const currentSettled = logged.some((entry) => entry.attempt === attempt && entry.outcome !== null)
        const current = currentSettled ? [] : yield* currentCandidates(row, walletPublicKey)
        const earlier = logged
          .filter((entry) => entry.outcome === null && !current.some((c) => c.entry.signature === entry.signature))
          .map(asCandidate)
        return [...current, ...earlier]
      })

    /**
     * A landed signature found for a transaction not at `submitting` (a failed one being retried):
     * it moves back to `submitting` with that attempt's columns, then settles as landed.
     */
    const adopt = (context: RunContext, signature: string, meta: LandedMeta) =>
      Effect.gen(function* () {
        const row = context.row
        const reopened = row.status === "submitting" ? row : yield* move(row, {
          from: [row.status], to: "submitting", stage: "confirm", message: `signature ${signature} of an earlier attempt landed: adopted`,
          fields: { clearError: true }, eventType: "transaction.adopted", eventMetadata: { signature }
        })
        if (reopened === undefined) return undefined
        return yield* landed(reopened, context, signature, meta)
      })

    /**
     * Before any new build of the transaction (a retry; an automatic attempt that rebuilds): every
     * signature of it that is not settled yet is asked of the chain. One landed: the transaction adopts
     * it (Adopted: confirmed, or failed on chain, with post-checks and proof as usual). None landed:
     * with `wait`, until the chain's block height is past every last valid block height, then once more
     * (Clear: build); without it, Open while one can still land (or the chain did not answer within
     * `checkTimeout`). Clear at once, with no RPC call, when there is nothing unsettled.
     */
    const beforeRebuild = (context: RunContext, options: { readonly wait: boolean; readonly checkTimeout?: Duration.DurationInput }) =>
      Effect.gen(function* () {
        const row = context.row
        const candidates = yield* unsettledOf(row, context.publicKey)
        if (candidates.length === 0) return { _tag: "Clear" } as const
        for (;;) {
          // (undefined: the chain did not answer within checkTimeout)
          const settled = options.checkTimeout === undefined
            ? yield* check(candidates)
            : Option.getOrUndefined(yield* Effect.timeoutOption(check(candidates), options.checkTimeout))
          if (settled?._tag === "Landed") return { _tag: "Adopted", row: yield* adopt(context, settled.signature, settled.meta) } as const
          if (settled?._tag === "NotLanded") {
            yield* log.settle(row.id, candidates.map((c) => c.entry), "not_landed", settled.blockHeight)
            return { _tag: "Clear" } as const
          }
          if (!options.wait) return { _tag: "Open", until: settled?.until ?? null, answered: settled !== undefined } as const
          yield* Effect.sleep(REBUILD_POLL)
        }
      })

    /**
     * A failed transaction whose signature may still land (a retry found it so): back to `submitting`,
     * unresolved, for the resolver, instead of being built again.
     */
    const reopenUnresolved = (row: TransactionRow, why: string) =>
      Effect.gen(function* () {
        const message = `unresolved: ${why}; the service settles it against the chain (confirmed if it landed, else failed) before anything is built again`
        yield* unresolvedSet.mark(row.id)
        return yield* move(row, {
          from: [row.status], to: "submitting", stage: "confirm", message,
          fields: { clearError: true, error: message }, eventType: "transaction.unresolved"
        })
      })

    return { submitted, landed, failUnsent, leaveUnresolved, pruneSettled: unresolvedSet.prune, settleNow, decideNow, earlierAttemptSpentNothing, beforeRebuild, reopenUnresolved, log }
  })
}) {}

/** A logged signature as a candidate (it is known by its id). */
const asCandidate = (entry: LoggedSignature): Candidate => ({
  candidate: { signature: entry.signature, lastValidBlockHeight: entry.lastValidBlockHeight },
  entry
})
