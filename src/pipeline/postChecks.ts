/**
 * Post-checks on a landed transaction: the wallet's balance right before and after its own transaction
 * (from the transaction's meta, so concurrent transactions of one wallet cannot disturb it), the delta
 * guard, position indexing (escrow records), the proof, and `confirmed` with confirmedAt.
 */
import { Effect } from "effect"
import { TX_CONFIRMATION_LATENCY_MS_TOTAL, TX_CONFIRMED } from "../audit/metricNames.js"
import { MetricCounters } from "../audit/metricCounters.js"
import { AppConfig } from "../config.js"
import { EscrowIndexer } from "../protocols/escrow/indexer.js"
import { StakePositionIndexer } from "../positions/stakePositionIndexer.js"
import { LendingPositionIndexer } from "../positions/lendingPositionIndexer.js"
import { typeFactsOf } from "../protocols/registry.js"
import { type DeltaGuardResult, deltaGuardToWire, evaluateDeltaGuard } from "./deltaGuard.js"
import { evaluateSwapTokenDeltas, tokenDeltaToWire } from "./tokenDeltaGuard.js"
import { buildExecutionProof } from "./proof.js"
import { StageTransitions } from "./stageTransitions.js"
import type { LandedMeta } from "./submission.js"
import type { TransactionRow } from "./transactionRow.js"

/** How a transaction the wallet did not pay the fee for is confirmed (gasless, x402). */
export interface ConfirmOptions {
  /** the wallet's position among the transaction's accounts (0: it paid the fee) */
  readonly walletIndex?: number
  /** the transaction's result, when its type has one */
  readonly result?: unknown
  /** record `signature` as the transaction's signature (the one that landed is not the wallet's) */
  readonly recordSignature?: boolean
}

/** A swap also checks its token flows; a token breach makes the guard fail with its reason. */
const withSwapTokenDeltas = (row: TransactionRow, guard: DeltaGuardResult, meta: LandedMeta, wallet: string) => {
  const facts = row.build_facts
  if (typeFactsOf(row.type)?.swapsAtQuote !== true || facts?.outputMint === undefined || facts.minimumOut === undefined || facts.tokenMint === null) return { guard, tokens: undefined }
  const tokens = evaluateSwapTokenDeltas({
    wallet,
    inputMint: facts.tokenMint,
    outputMint: facts.outputMint,
    amount: BigInt(facts.tokenAmount ?? "0"),
    minimumOut: BigInt(facts.minimumOut),
    preTokenBalances: meta.preTokenBalances ?? [],
    postTokenBalances: meta.postTokenBalances ?? []
  })
  const breach = tokens.find((delta) => !delta.ok)
  return {
    guard: breach === undefined ? guard : { ...guard, ok: false, reason: `token delta of ${breach.mint}: observed ${breach.observedDelta}, bound ${breach.expectedDelta ?? `at least ${breach.minimumDelta}`}` },
    tokens: tokens.map(tokenDeltaToWire)
  }
}

export class PostChecks extends Effect.Service<PostChecks>()("PostChecks", {
  dependencies: [EscrowIndexer.Default, StakePositionIndexer.Default, LendingPositionIndexer.Default, StageTransitions.Default],
  effect: Effect.gen(function* () {
    const config = yield* AppConfig
    const metrics = yield* MetricCounters
    const escrowIndexer = yield* EscrowIndexer
    const stakeIndexer = yield* StakePositionIndexer
    const lendingIndexer = yield* LendingPositionIndexer
    const { move } = yield* StageTransitions

    /**
     * Post-checks on a landed transaction: balances from its own meta, delta guard (with the protocol's
     * variance threshold, read when the run began), proof, confirmedAt.
     */
    const confirmed = (
      row: TransactionRow, signature: string, meta: LandedMeta, deltaVarianceBpsThreshold: number, walletPublicKey: string, options: ConfirmOptions = {}
    ) =>
      Effect.gen(function* () {
        // The wallet's balance right before and after this transaction: account 0 when it paid the fee,
        // its own position when a relay or an x402 facilitator did.
        const walletIndex = options.walletIndex ?? 0
        const pre = BigInt(meta.preBalances[walletIndex] ?? 0)
        const post = BigInt(meta.postBalances[walletIndex] ?? 0)
        // What the guard checks is the type's reading: the stored intent, or what the build recorded (rent, quotes).
        const reading = typeFactsOf(row.type)?.deltaGuard?.confirmed?.(row) ?? { intent: row.intent }
        const lamportGuard = evaluateDeltaGuard({
          type: row.type, intent: reading.intent, direction: reading.direction, preBalanceLamports: pre, postBalanceLamports: post,
          absoluteToleranceLamports: BigInt(config.deltaGuardToleranceLamports),
          varianceBpsThreshold: deltaVarianceBpsThreshold
        })
        const { guard, tokens } = withSwapTokenDeltas(row, lamportGuard, meta, walletPublicKey)
        // a type that creates a mint (create_mint, nft_mint): the client learns its new mint's address from the result.
        const createsMint = typeFactsOf(row.type)?.createsMint === true
        const result = options.result ?? (createsMint && row.build_facts?.tokenMint ? { mint: row.build_facts.tokenMint } : undefined)
        const proof = buildExecutionProof({
          txId: row.id, walletId: row.wallet_id, agentId: row.agent_id ?? undefined, intent: row.intent,
          policyDecision: row.policy_decision, simulation: row.simulation, signature
        })
        // Index escrow records and events before `confirmed` is visible, so a client that sees confirmed
        // also sees them (indexing never fails the transaction: it is on chain already).
        yield* escrowIndexer.onConfirmed(row, signature)
        yield* stakeIndexer.onConfirmed(row, meta, walletPublicKey)
        yield* lendingIndexer.onConfirmed(row, walletPublicKey)
        const confirmedAt = new Date()
        const moved = yield* move(row, {
          from: ["submitting"], to: "confirmed", stage: "completed", message: guard.ok ? "confirmed" : `confirmed; delta guard breach: ${guard.reason ?? ""}`,
          fields: {
            preBalanceLamports: pre, postBalanceLamports: post, deltaGuard: { ...deltaGuardToWire(guard), ...(tokens === undefined ? {} : { tokens }) },
            executionProof: proof, confirmedAt, result, clearError: true,
            ...(options.recordSignature === true ? { signature } : {})
          },
          eventType: "transaction.confirmed",
          eventMetadata: { signature, intentHash: proof.intentHash, policyHash: proof.policyHash, simulationHash: proof.simulationHash, proofHash: proof.proofHash, deltaGuardOk: guard.ok }
        })
        if (moved !== undefined) {
          yield* metrics.increment(TX_CONFIRMED)
          yield* metrics.increment(TX_CONFIRMATION_LATENCY_MS_TOTAL, Math.max(0, confirmedAt.getTime() - new Date(row.created_at).getTime()))
        }
        return moved
      })

    return { confirmed }
  })
}) {}
