/**
 * The policy engine as a Test layer, for unit tests that start neither the application nor a database: it
 * decides by the function the test gives, and keeps a transaction's decision by its id as the live engine
 * does (a repeat answers the stored decision; a retry's startOver forgets it; approval is recorded). It
 * counts no spend and reads no state, so there is nothing to give back.
 */
import { Effect, Layer } from "effect"
import type { EvaluateRequest, PolicyDecision } from "../../schemas/policy.js"
import { PolicyEngine } from "./policyEngine.js"
import type { StoredDecision } from "./policyStore.js"
import { toRequest } from "./transactionRisk.js"

export const PolicyEngineTest = (decide: (request: EvaluateRequest) => PolicyDecision) =>
  Layer.sync(PolicyEngine, () => {
    const decisions = new Map<string, StoredDecision>()
    return PolicyEngine.make({
      decideForTransaction: (input) =>
        Effect.sync(() => {
          const stored = decisions.get(input.txId)
          if (stored !== undefined) return { ...stored.decision, pauseAgent: false }
          const decision = decide(toRequest(input))
          const approvalSpendLamports = decision.decision === "require_approval" ? (input.facts.amountLamports ?? 0n) : null
          decisions.set(input.txId, { decision, walletId: input.walletId, tenantId: input.tenantId, approvalSpendLamports, approvedAt: null })
          return { ...decision, pauseAgent: false }
        }),
      recheckForSigning: (input) => Effect.sync(() => decide(toRequest(input))),
      onApproved: (txId) =>
        Effect.sync(() => {
          const stored = decisions.get(txId)
          if (stored !== undefined && stored.approvedAt === null) decisions.set(txId, { ...stored, approvedAt: new Date() })
        }),
      releaseSpend: () => Effect.void,
      startOver: (txId) => Effect.sync(() => void decisions.delete(txId)),
      decisionOf: (txId) => Effect.sync(() => decisions.get(txId)),
      evaluate: (_caller, request) => Effect.sync(() => decide(request))
    })
  })
