/**
 * An agent's execution, in the spec's order: capability allowlists, the manifest (when
 * AGENT_REQUIRE_MANIFEST=true), supervised mode (the approval gate), the remaining budget, then the full
 * pipeline (TransactionService.create, which runs policy). The same checks for every path that spends
 * from the agent's wallet (`executeRequest`, also called by WalletSpend). The budget is reserved before the transaction exists and bound to it after, so it
 * is exact under concurrency and a crash in between is released by the reconciler.
 * Also the runtime's entry point: an agent actor calls `execute` with the agent's own caller.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import type { ExecuteBody } from "../../schemas/agent.js"
import { PolicyViolation } from "../../schemas/errors.js"
import { AuditLog } from "../audit/auditLog.js"
import { AppConfig } from "../config.js"
import type { CallerInfo } from "../gateway/caller.js"
import { type AcceptedRequest, decodeTransactionRequest } from "../pipeline/acceptIntent.js"
import { TransactionRepo } from "../pipeline/transactionRepo.js"
import { TransactionService } from "../pipeline/transactionService.js"
import { AgentBreaches } from "./agentBreaches.js"
import { AgentService } from "./agentService.js"
import type { StoredAgent } from "./agentRow.js"
import { AgentBudgets, budgetExceededMessage } from "./budgets.js"
import { intentSpendLamports } from "../pipeline/intentSpend.js"
import { ManifestStore } from "./manifestStore.js"
import { treasuryRefusal } from "../pipeline/treasuryRights.js"

/** What execute was given: the body's fields, and the manifest from the body or the header (if any). */
export interface ExecuteInput {
  readonly order: Omit<ExecuteBody, "manifest">
  /** undefined: none sent. A header that does not decode arrives as the string "malformed". */
  readonly manifest: unknown
}

const capabilityRefusal = (stored: StoredAgent, type: string, protocol: string): string | undefined => {
  if (!stored.agent.allowedIntents.some((allowed) => allowed === type)) {
    return `intent type '${type}' is not in the allowedIntents of agent ${stored.agent.id} (${stored.agent.allowedIntents.join(", ")})`
  }
  const protocols = stored.agent.allowedProtocols
  if (protocols !== undefined && !protocols.some((allowed) => allowed === protocol)) {
    return `protocol '${protocol}' is not in the allowedProtocols of agent ${stored.agent.id} (${protocols.join(", ")})`
  }
  return undefined
}

export class AgentExecution extends Effect.Service<AgentExecution>()("AgentExecution", {
  dependencies: [AgentService.Default, AgentBudgets.Default, AgentBreaches.Default, ManifestStore.Default, TransactionService.Default, TransactionRepo.Default],
  effect: Effect.gen(function* () {
    const agents = yield* AgentService
    const budgets = yield* AgentBudgets
    const breaches = yield* AgentBreaches
    const manifests = yield* ManifestStore
    const transactions = yield* TransactionService
    const transactionRows = yield* TransactionRepo
    const audit = yield* AuditLog
    const config = yield* AppConfig
    const sql = yield* SqlClient.SqlClient

    const refuseOverBudget = (caller: CallerInfo, stored: StoredAgent, remaining: bigint, required: bigint, budget: bigint) =>
      Effect.gen(function* () {
        const message = budgetExceededMessage(remaining, required)
        // The event and the breach the supervisor acts on commit together.
        yield* sql.withTransaction(
          Effect.zipRight(
            audit.record({
              tenantId: stored.tenantId, eventType: "agent.budget.exceeded", message: `agent ${stored.agent.id}: ${message}`,
              metadata: { remainingLamports: remaining, requiredLamports: required, budgetLamports: budget },
              agentId: stored.agent.id, walletId: stored.agent.walletId, entityType: "agent", category: "budget", traceId: caller.traceId
            }),
            breaches.record({ tenantId: stored.tenantId, agentId: stored.agent.id, kind: "budget", reason: message })
          )
        ).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))
        return yield* Effect.fail(new PolicyViolation({ message, reasons: [message] }))
      })

    /** The agent's gate, in the spec's order: not paused, capability allowlists, the manifest when required. */
    const gate = (stored: StoredAgent, type: string, protocol: string, manifest: unknown) =>
      Effect.gen(function* () {
        // A paused agent (operator or breach) acts again only after resume: a refusal of policy (403), as the spec's
        // agent refusals are, not a malformed request.
        if (stored.agent.status === "paused") {
          const message = `agent ${stored.agent.id} is paused (${stored.agent.pausedReason ?? "no reason"}): resume it to execute`
          return yield* Effect.fail(new PolicyViolation({ message, reasons: [message] }))
        }
        const refusal = capabilityRefusal(stored, type, protocol)
        if (refusal !== undefined) return yield* Effect.fail(new PolicyViolation({ message: refusal, reasons: [refusal] }))
        if (config.agents.requireManifest) yield* manifests.requireForExecute(stored, manifest, type, protocol)
      })

    /** After the gate: supervised mode, the budget reservation, then the pipeline. */
    const submit = (caller: CallerInfo, stored: StoredAgent, accepted: AcceptedRequest) =>
      Effect.gen(function* () {
        const agentId = stored.agent.id
        // A supervised agent's every action waits for a human at the approval gate.
        const request: AcceptedRequest = {
          ...accepted,
          walletId: stored.agent.walletId,
          agentId,
          requireApproval: accepted.requireApproval || stored.agent.executionMode === "supervised"
        }
        // A repeat of an earlier execute answers that transaction (or refuses a different request) without new budget.
        if (request.idempotencyKey !== undefined) {
          const earlier = yield* transactionRows.findByIdempotencyKey(stored.tenantId, stored.agent.walletId, request.idempotencyKey)
          if (earlier !== undefined) return yield* transactions.create(caller, request, { agentId })
        }
        const lamports = intentSpendLamports(request.type, request.intent)
        const reservation = lamports === 0n ? undefined : yield* budgets.reserve(agentId, lamports, caller.traceId)
        if (reservation?._tag === "Exceeded") {
          return yield* refuseOverBudget(caller, stored, reservation.remainingLamports, reservation.requiredLamports, reservation.budgetLamports)
        }
        const reservationId = reservation?._tag === "Reserved" ? reservation.reservationId : undefined
        const release = (why: string) => (reservationId === undefined ? Effect.void : Effect.asVoid(budgets.release(reservationId, why)))

        const created = yield* transactions.create(caller, request, { agentId }).pipe(
          Effect.onError(() => release("transaction was not created"))
        )
        // An idempotent repeat answers the first transaction, which holds its own reservation.
        if (!created.created) yield* release("idempotent repeat of an earlier execute")
        else if (reservationId !== undefined) yield* budgets.bind(reservationId, created.row.id)
        return created
      })

    /**
     * A decoded request on the agent's wallet, with exactly execute's checks: every other path that spends
     * from an agent's wallet (POST /transactions, the escrow helpers, through WalletSpend) ends here.
     */
    const executeRequest = (caller: CallerInfo, stored: StoredAgent, request: AcceptedRequest, manifest: unknown) =>
      Effect.zipRight(gate(stored, request.type, request.protocol, manifest), submit(caller, stored, request)).pipe(
        Effect.withSpan("AgentExecution.executeRequest")
      )

    /** POST /agents/<id>/execute and the runtime: the agent's own order on its own wallet. */
    const execute = (caller: CallerInfo, agentId: string, input: ExecuteInput) =>
      Effect.gen(function* () {
        const treasury = treasuryRefusal(caller, input.order.type)
        if (treasury !== undefined) return yield* Effect.fail(treasury)
        const stored = yield* agents.get(caller, agentId)
        yield* gate(stored, input.order.type, input.order.protocol, input.manifest)
        const request = yield* decodeTransactionRequest({
          walletId: stored.agent.walletId,
          type: input.order.type,
          protocol: input.order.protocol,
          intent: input.order.intent,
          gasless: input.order.gasless,
          ...(input.order.idempotencyKey === undefined ? {} : { idempotencyKey: input.order.idempotencyKey })
        })
        return yield* submit(caller, stored, request)
      }).pipe(Effect.withSpan("AgentExecution.execute"))

    return { execute, executeRequest }
  })
}) {}
