/**
 * Runs one outbox job: the transaction's stages in the spec's fixed order, from wherever its recorded
 * status says it is (so a job that died half way resumes, never repeats a side effect): validation,
 * pre-balance read, build, simulate, risk and policy, approval gate, sign, submit, confirm,
 * post-checks, proof. Every transition is one SQL statement (status, history, audit events; shared
 * with other workers' transitions under load), then a metric and a stage-stream message per stage.
 * Build, simulation and the policy decision are written by one transition: nothing irreversible
 * happens before signing.
 */
import { PublicKey } from "@solana/web3.js"
import { Context, Effect, Option } from "effect"
import { Signer } from "./signer.js"
import { ChainClient } from "../chain/chainClient.js"
import { AppConfig } from "../config.js"
import { PolicyEngine } from "../policy/policyEngine.js"
import { requireFreshOracles } from "../protocols/oracle/requireFreshOracles.js"
import { ProtocolPrograms } from "../protocols/protocolPrograms.js"
import { buildWithAdapter, typeFactsOf } from "../protocols/registry.js"
import { Chaos } from "./chaos.js"
import { ChainFacts } from "../chain/chainFacts.js"
import { MessageBuilder } from "./messageBuilder.js"
import { AgentBreachReport, OffChainIntents } from "./agentPorts.js"
import { PostChecks } from "./postChecks.js"
import { withPreBalance } from "./preBalanceFacts.js"
import { ReadOnlyIntents } from "./readOnlyIntents.js"
import type { RunContext } from "./runContext.js"
import { describeSimulationError } from "./simulationError.js"
import { Retryable, Terminal } from "./stageFailure.js"
import { StageTransitions, type Unwritten } from "./stageTransitions.js"
import { Submission } from "./submission.js"
import { RUN_ENDS, TransactionRepo, type Transition } from "./transactionRepo.js"
import type { TransactionRow } from "./transactionRow.js"
import { assembleTransaction } from "./wireTransaction.js"
import { buildExecutionProof } from "./proof.js"
import { SignOnly } from "./signOnly.js"
import { GaslessStages } from "./gaslessStages.js"
import { X402Stages } from "./x402Stages.js"
import { ApprovalGate } from "./approvals/approvalGate.js"
import { EffectSimulation } from "./effectSimulation.js"
import { recordedEffect } from "./effectFacts.js"
import { riskInputOf } from "./riskInput.js"
import { Settlement } from "./settlement.js"
import { earlierAttempts } from "./earlierAttempt.js"
import { SIGN_ONLY_TYPES } from "./signRequest.js"
import { signingFailure } from "./signingFailure.js"
import { StageTelemetry } from "../observability/stageTelemetry.js"
import { AuditLog } from "../audit/auditLog.js"
import { isUniqueViolation } from "../db/uniqueViolation.js"


const NOTHING_UNWRITTEN: Unwritten = { fields: {}, via: [] }


export class PipelineExecutor extends Effect.Service<PipelineExecutor>()("PipelineExecutor", {
  dependencies: [
    TransactionRepo.Default,
    ChainFacts.Default,
    MessageBuilder.Default,
    Submission.Default,
    Signer.Default,
    PolicyEngine.Default,
    Chaos.Default,
    ReadOnlyIntents.Default,
    ProtocolPrograms.Default,
    StageTransitions.Default,
    PostChecks.Default,
    SignOnly.Default,
    GaslessStages.Default,
    X402Stages.Default,
    ApprovalGate.Default,
    EffectSimulation.Default,
    Settlement.Default
  ],
  effect: Effect.gen(function* () {
    const repo = yield* TransactionRepo
    const chain = yield* ChainClient
    const facts = yield* ChainFacts
    const messages = yield* MessageBuilder
    const submission = yield* Submission
    const signer = yield* Signer
    const policy = yield* PolicyEngine
    const chaos = yield* Chaos
    const readOnly = yield* ReadOnlyIntents
    const config = yield* AppConfig
    const programs = yield* ProtocolPrograms
    const { move, fail } = yield* StageTransitions
    const postChecks = yield* PostChecks
    const offChain = yield* OffChainIntents
    const breaches = yield* AgentBreachReport
    const signOnly = yield* SignOnly
    const telemetry = yield* StageTelemetry
    const audit = yield* AuditLog
    const gasless = yield* GaslessStages
    const x402 = yield* X402Stages
    const approvals = yield* ApprovalGate
    const effects = yield* EffectSimulation
    const settlement = yield* Settlement

    const chainRetryable = (failedAt: Retryable["failedAt"]) => (error: { message: string }) =>
      Effect.fail(new Retryable({ message: error.message, failedAt }))

    const chaosAt = (stage: "build" | "sign" | "send", failedAt: Retryable["failedAt"]) =>
      chaos.inject(stage).pipe(Effect.mapError((fault) => new Retryable({ message: fault.message, failedAt })))

    // ---- stages ---------------------------------------------------------------------------

    const pending = (row: TransactionRow, wallet: { readonly publicKey: string }) =>
      Effect.gen(function* () {
        const performedBy = typeFactsOf(row.type)?.performedBy
        if (performedBy === "balanceRead" || performedBy === "positionsRead") {
          const result =
            performedBy === "balanceRead"
              ? yield* readOnly.queryBalance(wallet.publicKey, row.intent).pipe(Effect.catchAll(chainRetryable("build")))
              : yield* readOnly.queryPositions(row.tenant_id, row.wallet_id, wallet.publicKey).pipe(Effect.catchAll(chainRetryable("build")))
          return yield* move(row, {
            from: ["pending"], to: "confirmed", stage: "completed", message: "read-only intent answered",
            fields: { result, confirmedAt: new Date() }, eventType: "transaction.confirmed"
          })
        }
        if (performedBy === "offChain") {
          const result = yield* offChain.perform(row)
          return yield* move(row, {
            from: ["pending"], to: "confirmed", stage: "completed", message: "off-chain intent performed",
            fields: { result, confirmedAt: new Date() }, eventType: "transaction.confirmed"
          })
        }
        if (SIGN_ONLY_TYPES.has(row.type)) return yield* signRequestPending(row, wallet)
        if (performedBy === "x402Payment") return yield* x402.pending(row, wallet.publicKey, { simulate, policyEval })
        const { compiled, builtStage, buildFields } = yield* buildMessage(row, wallet.publicKey)
        const gaslessRefusals = yield* gasless.admit(row, compiled.messageBase64)
        if (gaslessRefusals.length > 0) {
          return yield* fail(row, new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied: ${gaslessRefusals.join("; ")}`, stage: "policy" }), {
            unwritten: { fields: buildFields, via: [builtStage] }
          })
        }
        const simulation = yield* simulate(wallet.publicKey, compiled.messageBase64, compiled.extraSignatures)
        if (!simulation.ok) {
          const recorded = yield* move(row, { from: ["pending"], to: builtStage.status, stage: builtStage.stage, message: builtStage.message, fields: buildFields, eventType: builtStage.eventType })
          return recorded === undefined ? undefined : yield* failSimulation(recorded, simulation)
        }
        // Build, simulation and the policy decision are written together (one statement): nothing
        // irreversible happens before signing, so a run that dies before then builds again (the policy
        // engine records a transaction's decision and spend once).
        const simulatedStage = { status: "policy_eval", stage: "policy", eventType: "transaction.simulated", message: "simulation ok", at: new Date().toISOString() } as const
        return yield* policyEval(row, { fields: { ...buildFields, simulation }, via: [builtStage, simulatedStage] })
      })

    /** Builds the intent's message on a fresh blockhash (its fee payer, compute budget) and reads the wallet's balance before it. */
    const buildMessage = (row: TransactionRow, publicKey: string) =>
      Effect.gen(function* () {
        yield* chaosAt("build", "build")
        const payer = new PublicKey(publicKey)
        const reads = withPreBalance(facts, chain, publicKey)
        const built = yield* buildWithAdapter({ type: row.type, protocol: row.protocol, wallet: payer, intent: row.intent }).pipe(
          Effect.provide(Context.add(programs.services, ChainFacts, reads.facts)),
          Effect.catchTags({
            AdapterInputError: (error) => Effect.fail(new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: error.message, stage: "build" })),
            // fail closed (spec rule 4): no build on a price older than ORACLE_MAX_PRICE_AGE_SECONDS
            StalePriceError: (error) => Effect.fail(new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: error.message, stage: "build" })),
            RpcUnavailableError: chainRetryable("build"),
            RpcApplicationError: (error) => Effect.fail(new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: error.message, stage: "build" }))
          })
        )
        const feePayer = yield* gasless.feePayer(row, payer)
        const compiled = yield* messages.compile(row.type, feePayer, built).pipe(Effect.catchAll(chainRetryable("build")))
        const preBalance = yield* reads.preBalance.pipe(Effect.catchAll(chainRetryable("build")))
        const builtStage = {
          status: "simulating", stage: "build", eventType: "transaction.built", at: new Date().toISOString(),
          message: `built: ${built.instructions.length} instruction(s), ${compiled.computeUnitLimit} CU`
        } as const
        const buildFields = {
          preBalanceLamports: preBalance,
          messageBase64: compiled.messageBase64,
          extraSignatures: compiled.extraSignatures,
          lastValidBlockHeight: compiled.lastValidBlockHeight,
          buildFacts: {
            destination: built.facts.destination,
            tokenMint: built.facts.tokenMint,
            amountLamports: built.facts.amountLamports?.toString() ?? null,
            tokenAmount: built.facts.tokenAmount?.toString() ?? null,
            programIds: compiled.programIds,
            computeUnitLimit: compiled.computeUnitLimit,
            priorityFeeMicroLamports: compiled.priorityFeeMicroLamports.toString(),
            ...(built.facts.pools === undefined ? {} : { pools: built.facts.pools }),
            ...(built.facts.outputMint === undefined ? {} : { outputMint: built.facts.outputMint }),
            ...(built.facts.quotedAt === undefined ? {} : { quotedAt: built.facts.quotedAt }),
            ...(built.facts.minimumOut === undefined ? {} : { minimumOut: built.facts.minimumOut.toString() }),
            ...(built.facts.oracleDeviationBps === undefined ? {} : { oracleDeviationBps: built.facts.oracleDeviationBps }),
            ...(built.facts.oracleUnavailable === undefined ? {} : { oracleUnavailable: built.facts.oracleUnavailable }),
            ...(built.facts.oracleAccounts === undefined ? {} : { oracleAccounts: built.facts.oracleAccounts }),
            ...(built.facts.expectedInflowLamports === undefined ? {} : { expectedInflowLamports: built.facts.expectedInflowLamports.toString() })
          }
        }
        return { compiled, builtStage, buildFields }
      })

    /** An approved transaction built again with a fresh blockhash (approvals outlive blockhashes), admitted and simulated. */
    const rebuild = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        const { compiled, buildFields } = yield* buildMessage(row, context.publicKey)
        const refusals = yield* gasless.admit(row, compiled.messageBase64)
        if (refusals.length > 0) return yield* Effect.fail(new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied: ${refusals.join("; ")}`, stage: "policy" }))
        const simulation = yield* simulate(context.publicKey, compiled.messageBase64, compiled.extraSignatures)
        return { fields: { ...buildFields, simulation }, simulation }
      })

    /** A signing request (POST /wallets/<id>/sign): the caller's bytes, simulated, then the ordinary policy stage. */
    const signRequestPending = (row: TransactionRow, wallet: { readonly publicKey: string }) =>
      Effect.gen(function* () {
        const prepared = yield* signOnly.prepare(row, wallet.publicKey).pipe(
          Effect.catchAll((error): Effect.Effect<never, Terminal | Retryable> =>
            error._tag === "SignInputRefused"
              ? Effect.fail(new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: error.message, stage: "build" }))
              : chainRetryable("build")(error)
          )
        )
        switch (prepared.kind) {
          case "ready":
            return yield* policyEval(row, prepared.unwritten)
          case "refused":
            return yield* fail(row, new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied: ${prepared.message}`, stage: "policy" }), {
              unwritten: prepared.unwritten
            })
          case "simulationFailed": {
            const recorded = yield* move(row, { from: ["pending"], to: "simulating", stage: "build", message: "transaction to sign recorded", fields: prepared.fields, eventType: "transaction.built" })
            return recorded === undefined ? undefined : yield* failSimulation(recorded, prepared.simulation)
          }
        }
      })

    /** Simulates the built message (signatures not verified: nothing is signed yet) for its whole effect on `wallet`. */
    const simulate = (wallet: string, messageBase64: string, extraSignatures: Record<string, string>) =>
      Effect.gen(function* () {
        // An injected simulation failure is a failed simulation (simulating -> failed, with a failure proof), not a retry.
        const injected = yield* Effect.either(chaos.inject("simulation"))
        if (injected._tag === "Left") return { ok: false as const, logs: [], error: injected.left.message }
        const simulated = yield* effects.simulate(wallet, messageBase64, extraSignatures).pipe(Effect.catchAll(chainRetryable("build")))
        const { logs } = simulated
        const units = simulated.unitsConsumed === undefined ? {} : { unitsConsumed: simulated.unitsConsumed }
        if (simulated.ok) return { ok: true as const, logs, ...units, ...("effect" in simulated ? { effect: simulated.effect } : { effectError: simulated.effectError }) }
        return { ok: false as const, logs, ...units, error: describeSimulationError(simulated.err, logs, programs.ids) }
      })

    /** [n24] a failed simulation fails at `build` (the envelope has no simulate stage); the proof covers the logs. */
    const failSimulation = (row: TransactionRow, simulation: { readonly error: string }) =>
      fail(row, new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: `simulation failed: ${simulation.error}`, stage: "simulate" }), { simulation })

    /** A transaction recorded at `simulating` (its run stopped after the build was written): simulate it. */
    const simulating = (row: TransactionRow, wallet: string) =>
      Effect.gen(function* () {
        const simulation = yield* simulate(wallet, row.message_base64 ?? "", row.extra_signatures ?? {})
        if (!simulation.ok) return yield* failSimulation(row, simulation)
        return yield* move(row, {
          from: ["simulating"], to: "policy_eval", stage: "policy", message: "simulation ok", fields: { simulation }, eventType: "transaction.simulated"
        })
      })

    /**
     * Risk and policy for `row` (as recorded: `pending` when the run built and simulated it just now,
     * `policy_eval` when it resumes); `unwritten`: the build and simulation not yet recorded, written
     * with the transition this stage makes.
     */
    const policyEval = (row: TransactionRow, unwritten: Unwritten = NOTHING_UNWRITTEN) =>
      Effect.gen(function* () {
        const built = unwritten.fields.buildFacts ?? row.build_facts
        const preBalance = unwritten.fields.preBalanceLamports ?? BigInt(row.pre_balance_lamports ?? "0")
        const withUnwritten = (change: Transition): Transition => ({
          ...change, fields: { ...unwritten.fields, ...change.fields }, via: [...unwritten.via, ...(change.via ?? [])]
        })
        const recorded = recordedEffect(row.type, unwritten.fields.simulation ?? row.simulation)
        if (recorded.kind === "refused") {
          return yield* fail(row, new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied: ${recorded.reason}`, stage: "policy" }), { unwritten })
        }
        const effect = recorded.kind === "effect" ? recorded.effect : undefined
        const decision = yield* policy.decideForTransaction(riskInputOf(row, built, preBalance, effect), (denied) =>
          // A portfolio breach by an agent's spend: the supervisor pauses the agent (autoPauseOnBreach).
          // Stored with the decision, in its SQL transaction, so no crash can keep one without the other.
          row.agent_id === null
            ? Effect.void
            : breaches.portfolio({ tenantId: row.tenant_id, agentId: row.agent_id, reason: `transaction ${row.id}: ${denied.join("; ")}`, txId: row.id })
        )
        const reasons = decision.reasons.join("; ")
        if (decision.decision === "deny") {
          return yield* fail(row, new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied: ${reasons}`, stage: "policy" }), {
            policyDecision: decision, unwritten
          })
        }
        if (decision.decision === "require_approval") {
          // the approver's preview, its hash and quorum (approvals/approvalGate.ts); webhooks carry them
          const gate = yield* approvals.open(row, decision, unwritten)
          return yield* move(row, withUnwritten({
            from: [row.status], to: "approval_gate", stage: "policy", message: `approval required: ${reasons}`,
            fields: { policyDecision: decision, approval: gate.approval },
            eventType: "transaction.policy_evaluated", eventMetadata: { decision: decision.decision, reasons: decision.reasons, ...gate.eventMetadata }
          }))
        }
        return yield* move(row, withUnwritten({
          from: [row.status], to: "signing", stage: "sign", message: "allowed",
          fields: { policyDecision: decision }, eventType: "transaction.policy_evaluated", eventMetadata: { decision: decision.decision, reasons: decision.reasons }
        }))
      })

    /** A swap approved long after its quote: the quote-age bound of policy holds at signing too (docs/decisions/oracle.md). */
    const quoteStillFresh = (row: TransactionRow, context: RunContext) => {
      const quotedAt = row.build_facts?.quotedAt
      if (quotedAt === undefined || context.maxQuoteAgeSeconds === undefined) return Effect.void
      const age = Math.max(0, Math.floor((Date.now() - Date.parse(quotedAt)) / 1000))
      return age <= context.maxQuoteAgeSeconds ? Effect.void : Effect.fail(new Terminal({
        failedAt: "sign", errorCode: "PIPELINE_ERROR", stage: "sign",
        message: `not signed: the swap's quote is ${age}s old (taken ${quotedAt}), above maxQuoteAgeSeconds ${context.maxQuoteAgeSeconds}`
      }))
    }

    const signing = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        yield* chaosAt("sign", "sign")
        // approved: built again, judged again, compared with the approved preview (approvals/approvalGate.ts)
        const ready = yield* approvals.reconfirm(row, context, rebuild(row, context))
        return ready === undefined || ready.status !== "signing" ? ready : yield* signRecorded(ready, context)
      })

    /** Signs the recorded message (the signer actor checks the recorded decision again) and records the signature. */
    const signRecorded = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        yield* quoteStillFresh(row, context)
        // a borrow approved long after its build: the program would judge it on whatever price is there now
        const oracles = row.build_facts?.oracleAccounts ?? []
        if (oracles.length > 0) {
          yield* requireFreshOracles(facts.accounts, oracles.map((oracle) => new PublicKey(oracle)), programs.oracleMaxAgeSeconds).pipe(
            Effect.catchTags({
              StalePriceError: (error) => Effect.fail(new Terminal({ failedAt: "sign", errorCode: "PIPELINE_ERROR", message: `not signed: ${error.message}`, stage: "sign" })),
              RpcUnavailableError: chainRetryable("sign"),
              RpcApplicationError: chainRetryable("sign")
            })
          )
        }
        const signed = yield* signer.sign(row.id).pipe(Effect.mapError(signingFailure))
        if (SIGN_ONLY_TYPES.has(row.type)) return yield* signedOnly(row, signed)
        return yield* move(row, {
          from: ["signing"], to: "submitting", stage: "send", message: "signed",
          fields: { signature: signed.signature, signedTransaction: signed.signedTransaction },
          eventType: "transaction.signed", eventMetadata: { signature: signed.signature, signedAt: signed.signedAt }
        }).pipe(
          Effect.catchSomeDefect((defect) =>
            isUniqueViolation(defect, "transactions_signature") ? Option.some(buildAgainAfterIdentical(row, context, signed.signature)) : Option.none()
          )
        )
      })

    /**
     * Another transaction holds the signature this one just made: the same intent (wallet, destination,
     * amount) built on the same blockhash by another worker process, which makes the same bytes (each
     * process keeps only its own messages distinct). The unique signature index refused ours before it
     * was sent, so nothing left the service: it is built again (a price this process has not used),
     * judged by policy again as a signing approved earlier is, and that message is signed.
     */
    const buildAgainAfterIdentical = (row: TransactionRow, context: RunContext, taken: string) =>
      Effect.gen(function* () {
        const reason = `not sent: another transaction signed the same bytes (${taken}: the same intent, built on the same blockhash by another worker)`
        const builtAgain = (message: string, fields: Transition["fields"] = {}) =>
          move(row, { from: ["signing"], to: "signing", stage: "sign", message, fields, eventType: "transaction.rebuilt", eventMetadata: { identicalTo: taken } })
        // an approved transaction is built again at signing anyway, and compared with its approved preview (approvalGate.ts)
        if (row.policy_decision?.decision === "require_approval") return yield* builtAgain(`${reason}; building again`)
        const rebuilt = yield* rebuild(row, context)
        if (!rebuilt.simulation.ok) {
          return yield* Effect.fail(new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message: `simulation failed when built again: ${rebuilt.simulation.error ?? "unknown error"}`, stage: "simulate" }))
        }
        const recorded = recordedEffect(row.type, rebuilt.simulation)
        if (recorded.kind === "refused") {
          return yield* Effect.fail(new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy denied when built again: ${recorded.reason}`, stage: "policy" }))
        }
        const fields = rebuilt.fields
        const decision = yield* policy.recheckForSigning(riskInputOf(row, fields.buildFacts, fields.preBalanceLamports, recorded.kind === "effect" ? recorded.effect : undefined))
        if (decision.decision !== "allow") {
          const verdict = decision.decision === "deny" ? "denied" : "asks for an approval"
          return yield* Effect.fail(new Terminal({ failedAt: "policy", errorCode: "POLICY_VIOLATION", message: `policy ${verdict} when built again: ${decision.reasons.join("; ")}`, stage: "policy" }))
        }
        return yield* builtAgain(`${reason}; built again and allowed`, fields)
      })

    /**
     * A signing request ends signed: the caller submits it (or uses the message signature). The signature
     * is its result (not the `signature` column, which tracks what the pipeline submits), with a proof.
     */
    const signedOnly = (row: TransactionRow, signed: { readonly signature: string; readonly signedTransaction: string }) =>
      Effect.gen(function* () {
        const proof = buildExecutionProof({
          txId: row.id, walletId: row.wallet_id, agentId: row.agent_id ?? undefined, intent: row.intent,
          policyDecision: row.policy_decision, simulation: row.simulation, signature: signed.signature
        })
        return yield* move(row, {
          from: ["signing"], to: "confirmed", stage: "completed", message: "signed; not submitted by the service",
          fields: {
            ...(signed.signedTransaction === "" ? {} : { signedTransaction: signed.signedTransaction }),
            executionProof: proof, confirmedAt: new Date(), result: { signature: signed.signature, submitted: false }
          },
          eventType: "transaction.signed", eventMetadata: { signature: signed.signature, proofHash: proof.proofHash }
        })
      })

    /** The spec's `transaction.submitted` event: the signed bytes left for the cluster (again, on a resumed run). */
    const submitted = (row: TransactionRow, signature: string) =>
      audit.recordSoon({
        tenantId: row.tenant_id, eventType: "transaction.submitted", message: "sent to the cluster", metadata: { signature },
        txId: row.id, walletId: row.wallet_id, agentId: row.agent_id, protocol: row.protocol, traceId: row.trace_id ?? null
      })

    const submitting = (row: TransactionRow, context: RunContext) =>
      Effect.gen(function* () {
        yield* chaosAt("send", "send")
        if (typeFactsOf(row.type)?.performedBy === "x402Payment") return yield* x402.submit(row, context)
        if (row.gasless) return yield* gasless.submit(row, context)
        const signature = row.signature ?? ""
        const outcome = yield* submission.submitAndConfirm(signature, row.signed_transaction ?? "", BigInt(row.last_valid_block_height ?? "0"), Effect.asVoid(submitted(row, signature)))
        // From here the chain decides: confirmed, failed on chain, or proven not landed (settlement.ts).
        return yield* settlement.submitted(row, context, signature, outcome)
      })

    const step = (row: TransactionRow, context: RunContext): Effect.Effect<TransactionRow | undefined, Retryable | Terminal> => {
      switch (row.status) {
        case "pending":
          return pending(row, context)
        case "simulating":
          return simulating(row, context.publicKey)
        case "policy_eval":
          return policyEval(row)
        case "signing":
          return signing(row, context)
        case "submitting":
          return submitting(row, context)
        default:
          return Effect.succeed(undefined)
      }
    }

    /**
     * Runs the transaction forward until it is terminal, waits at the gate, or another worker took it.
     * True when its own last transition ended the run: that statement also finished the outbox job.
     */
    const run = (context: RunContext | undefined): Effect.Effect<boolean, Retryable> =>
      Effect.gen(function* () {
        if (context === undefined) return false
        let row: TransactionRow | undefined = context.row
        let moved = false
        // A retried transaction is built again only once no earlier signature of it can land (issue 30).
        if (row.status === "pending" && earlierAttempts(row.history).length > 0) {
          const verdict = yield* settlement.beforeRebuild(context, { wait: true }).pipe(Effect.catchAll(chainRetryable("build")))
          if (verdict._tag === "Adopted") [row, moved] = [verdict.row, true]
        }
        while (row !== undefined && !RUN_ENDS.has(row.status)) {
          const current: TransactionRow = row
          row = yield* telemetry.step(
            { txId: current.id, traceId: current.trace_id ?? null, status: current.status, type: current.type },
            step(current, context).pipe(Effect.catchTag("Terminal", (failure) => fail(current, failure)))
          )
          moved = true
          if (row?.status === "confirmed") yield* telemetry.confirmed(row.created_at, new Date())
        }
        yield* gasless.countFailure(row)
        return moved && row !== undefined
      })

    /**
     * The outbox gave up (attempt limit): the transaction fails visibly at its current stage, except
     * once its bytes may have left (`submitting`): then it stays visibly unresolved until the chain
     * settles it (settlement.ts, the settlement resolver).
     */
    const giveUp = (txId: string, lastError: Retryable) =>
      Effect.gen(function* () {
        const row = yield* repo.find(txId, null)
        if (row === undefined || ["confirmed", "failed"].includes(row.status)) return
        if (row.status === "submitting") {
          yield* settlement.leaveUnresolved(row, `the outbox gave up after ${config.outbox.maxAttempts} attempts (${lastError.message})`)
          return
        }
        yield* fail(row, new Terminal({
          failedAt: lastError.failedAt,
          errorCode: lastError.failedAt === "send" || lastError.failedAt === "confirm" ? "CONFIRMATION_FAILED" : "PIPELINE_ERROR",
          message: `gave up after ${config.outbox.maxAttempts} attempts: ${lastError.message}`,
          stage: lastError.failedAt
        }))
      })

    return { run, giveUp }
  })
}) {}
