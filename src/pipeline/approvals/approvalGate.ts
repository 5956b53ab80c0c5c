/**
 * The approval gate's side of issue 31: the approval a transaction gets when policy requires one (its
 * human-readable preview, the preview's hash, how many distinct operators must approve), and what happens
 * after approval before anything is signed: the transaction is built again with a fresh blockhash
 * (approvals outlive blockhashes), judged by policy again as it is now, simulated, and signed only if its
 * effect equals the approved preview within the delta tolerance; otherwise it goes back to the gate with the
 * new preview, visibly. docs/decisions/approvals.md.
 */
import { Effect } from "effect"
import { typeFactsOf } from "../../protocols/registry.js"
import { AppConfig } from "../../config.js"
import { PolicyEngine } from "../../policy/policyEngine.js"
import { WalletRepo } from "../../wallet/walletRepo.js"
import { riskInputOf } from "../riskInput.js"
import type { RunContext } from "../runContext.js"
import { SIGN_MESSAGE_TYPE, SIGN_ONLY_TYPES } from "../signRequest.js"
import { recordedEffect } from "../effectFacts.js"
import { EffectSimulation } from "../effectSimulation.js"
import type { TransactionEffect } from "../../../schemas/effect.js"
import { Retryable, Terminal } from "../stageFailure.js"
import { StageTransitions, type Unwritten } from "../stageTransitions.js"
import type { TransitionFields } from "../transactionRepo.js"
import type { TransactionRow } from "../transactionRow.js"
import { ApprovalPreviews } from "./approvalPreviews.js"
import { approvalEventMetadata, type ApprovalRecord, openApproval } from "./approvalRecord.js"
import { type ApprovalPreview, effectDifference, previewHash } from "./preview.js"
import { WalletQuorums } from "./walletQuorums.js"

/** A transaction built again after approval: the fields its build and simulation write. */
export interface Rebuilt {
  readonly fields: TransitionFields
  readonly simulation: { readonly ok: boolean; readonly error?: string }
}

/** A simulation as the preview reads it: whether it ran, and the whole effect it found. */
interface Simulated {
  readonly ok: boolean
  readonly error?: string
  readonly effect?: TransactionEffect
}

/** Types the service builds from the intent (and can build again); the rest sign the recorded bytes. */
const rebuildable = (row: TransactionRow) => !SIGN_ONLY_TYPES.has(row.type) && typeFactsOf(row.type)?.performedBy !== "x402Payment"

export class ApprovalGate extends Effect.Service<ApprovalGate>()("ApprovalGate", {
  dependencies: [ApprovalPreviews.Default, EffectSimulation.Default, StageTransitions.Default, WalletQuorums.Default, WalletRepo.Default, PolicyEngine.Default],
  effect: Effect.gen(function* () {
    const previews = yield* ApprovalPreviews
    const quorums = yield* WalletQuorums
    const wallets = yield* WalletRepo
    const policy = yield* PolicyEngine
    const effects = yield* EffectSimulation
    const config = yield* AppConfig
    const { move } = yield* StageTransitions

    const previewOf = (row: TransactionRow, wallet: string, fields: TransitionFields, simulated: Simulated, decision: { readonly riskTier: string; readonly reasons: ReadonlyArray<string> }) =>
      previews.previewOf({
        type: row.type, protocol: row.protocol, gasless: row.gasless, intent: row.intent, wallet,
        messageBase64: fields.messageBase64 ?? row.message_base64 ?? "", simulated, riskTier: decision.riskTier, reasons: decision.reasons
      }).pipe(Effect.mapError((error) => new Retryable({ message: `approval preview: ${error.message}`, failedAt: "policy" })))

    /** A simulation as recorded (its effect decoded); an unreadable effect refuses it (policy cannot judge it). */
    const simulatedFrom = (row: TransactionRow, simulation: unknown): Effect.Effect<Simulated, Terminal> => {
      const recorded = typeof simulation === "object" && simulation !== null && (simulation as { ok?: unknown }).ok === false
        ? undefined
        : recordedEffect(row.type, simulation)
      if (recorded === undefined) return Effect.succeed({ ok: false, error: String((simulation as { error?: unknown }).error ?? "failed") })
      if (recorded.kind === "refused") return Effect.fail(new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied: ${recorded.reason}`, stage: "policy" }))
      return Effect.succeed(recorded.kind === "effect" ? { ok: true, effect: recorded.effect } : { ok: true })
    }

    /** The recorded bytes (not built by the service) simulated again, as they would run now. */
    const simulateRecorded = (row: TransactionRow, wallet: string) =>
      Effect.gen(function* () {
        if (row.type === SIGN_MESSAGE_TYPE) return { ok: true } satisfies Simulated
        const simulated = yield* effects.simulate(wallet, row.message_base64 ?? "", row.extra_signatures ?? {}).pipe(
          Effect.mapError((error) => new Retryable({ message: error.message, failedAt: "sign" }))
        )
        return simulated.ok ? yield* simulatedFrom(row, simulated) : ({ ok: false, error: JSON.stringify(simulated.err) } satisfies Simulated)
      })

    const opened = (row: TransactionRow, preview: ApprovalPreview, round?: { readonly round: number; readonly changed: string }) =>
      Effect.map(quorums.required(row.wallet_id, row.tenant_id), (approvalsRequired) =>
        openApproval({
          now: new Date(), ttlMs: config.approvals.ttlMs, approvalsRequired, preview, previewHash: previewHash(preview),
          ...(round === undefined ? {} : { round: round.round, changedSinceApproval: round.changed })
        })
      )

    /** The approval of a transaction policy sent to the gate, and what its event carries (webhooks too). */
    const open = (row: TransactionRow, decision: { readonly riskTier: string; readonly reasons: ReadonlyArray<string> }, unwritten: Unwritten) =>
      Effect.gen(function* () {
        const wallet = yield* wallets.find(row.wallet_id, null)
        if (wallet === undefined) return yield* Effect.fail(new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: "the wallet is gone", stage: "policy" }))
        const simulated = yield* simulatedFrom(row, unwritten.fields.simulation ?? row.simulation)
        const approval = yield* opened(row, yield* previewOf(row, wallet.wallet.publicKey, unwritten.fields, simulated, decision))
        return { approval, eventMetadata: approvalEventMetadata(approval) }
      })

    /**
     * Before an approved transaction is signed: built again (when the service builds it), judged by policy as it
     * is now (a deny fails it), simulated, and compared with the approved preview. Answers the row to sign (at
     * `signing`, with the new message recorded), or the row as it moved back to the gate, or undefined when
     * another worker moved it first. A transaction that was allowed without approval is signed as built.
     */
    const reconfirm = (row: TransactionRow, context: RunContext, rebuild: Effect.Effect<Rebuilt, Retryable | Terminal>) =>
      Effect.gen(function* () {
        if (row.policy_decision?.decision !== "require_approval") return row
        const approved: Partial<ApprovalRecord> = row.approval ?? {}
        const rebuilt = rebuildable(row) ? yield* rebuild : undefined
        if (rebuilt !== undefined && !rebuilt.simulation.ok) {
          return yield* Effect.fail(new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: `simulation failed after approval: ${rebuilt.simulation.error ?? "unknown error"}`, stage: "simulate" }))
        }
        const fields = rebuilt?.fields ?? {}
        const simulated = rebuilt === undefined ? yield* simulateRecorded(row, context.publicKey) : yield* simulatedFrom(row, rebuilt.fields.simulation)
        const preBalance = fields.preBalanceLamports ?? BigInt(row.pre_balance_lamports ?? "0")
        const decision = yield* policy.recheckForSigning(riskInputOf(row, fields.buildFacts ?? row.build_facts, preBalance, simulated.effect))
        if (decision.decision === "deny") {
          return yield* Effect.fail(new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied at signing, after approval: ${decision.reasons.join("; ")}`, stage: "policy" }))
        }
        const preview = yield* previewOf(row, context.publicKey, fields, simulated, decision)
        // what fails to simulate now would fail on chain: failed as any build whose simulation fails ([n24])
        if (!preview.simulation.ok) {
          return yield* Effect.fail(new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: `simulation failed after approval: ${preview.simulation.error ?? "unknown error"}`, stage: "simulate" }))
        }
        const difference = approved.preview === undefined
          ? undefined
          : effectDifference(approved.preview, preview, { lamports: BigInt(config.deltaGuardToleranceLamports), varianceBps: context.deltaVarianceBpsThreshold })
        if (difference !== undefined) {
          // bytes the service did not build cannot be built again: a new approval would not change them
          if (rebuilt === undefined) return yield* Effect.fail(new Terminal({ failedAt: "sign", errorCode: "PIPELINE_ERROR", message: `not signed: since approval, ${difference}`, stage: "sign" }))
          const changed = `since approval, ${difference}`
          const approval = yield* opened(row, preview, { round: (approved.round ?? 1) + 1, changed })
          return yield* move(row, {
            from: ["signing"], to: "approval_gate", stage: "policy", message: `not signed: ${changed}; it needs a new approval`,
            fields: { ...fields, approval },
            eventType: "transaction.policy_evaluated",
            eventMetadata: { decision: "require_approval", reasons: [`effect changed ${changed}`, ...decision.reasons], ...approvalEventMetadata(approval) }
          })
        }
        if (rebuilt === undefined) return row
        return yield* move(row, {
          from: ["signing"], to: "signing", stage: "sign", message: "built again after approval (fresh blockhash); its effect equals the approved preview",
          fields, eventType: "transaction.rebuilt", eventMetadata: { previewHash: approved.previewHash }
        })
      })

    return { open, reconfirm }
  })
}) {}
