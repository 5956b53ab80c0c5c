/**
 * Every path that spends from a wallet creates its transaction here (POST /transactions, the escrow
 * helpers): when the wallet is an agent's, that agent's checks apply exactly as on
 * `/agents/<id>/execute` (allowlists, paused, manifest when required, supervised mode, budget), and an
 * `agentId` must be an agent of that wallet. An agent's credential spends only from its own agent's
 * wallet, as that agent. DESIGN.md "Who may do what"; docs/decisions/access.md.
 */
import { Effect, Option } from "effect"
import { Forbidden, NotFound, ValidationError } from "../../schemas/errors.js"
import { AppConfig } from "../config.js"
import { actingAgent, type CallerInfo } from "../gateway/caller.js"
import { hotSpan } from "../observability/tracing.js"
import type { AcceptedRequest } from "../pipeline/acceptIntent.js"
import { TransactionService } from "../pipeline/transactionService.js"
import { AgentExecution } from "./agentExecution.js"
import { AgentRepo } from "./agentRepo.js"
import type { StoredAgent } from "./agentRow.js"
import { TREASURY_TYPES, treasuryRefusal } from "../pipeline/treasuryRights.js"

const notOwnWallet = (self: string) =>
  new Forbidden({ message: `This key acts as agent ${self}: it spends only from that agent's wallet, as that agent` })

export class WalletSpend extends Effect.Service<WalletSpend>()("WalletSpend", {
  dependencies: [AgentRepo.Default, AgentExecution.Default, TransactionService.Default],
  effect: Effect.gen(function* () {
    const agents = yield* AgentRepo
    const execution = yield* AgentExecution
    const transactions = yield* TransactionService
    const exporting = Option.isSome((yield* AppConfig).observability.otlpEndpoint)

    /** The agent that governs this request's wallet: the named one (which must be the wallet's), or the wallet's only agent. */
    const governingAgent = (caller: CallerInfo, request: AcceptedRequest) =>
      Effect.gen(function* () {
        const owners = yield* agents.listByWallet(request.walletId, caller.readTenant)
        if (request.agentId !== undefined) {
          const named = owners.find((owner) => owner.agent.id === request.agentId)
          if (named !== undefined) return named
          const elsewhere = yield* agents.find(request.agentId, caller.readTenant)
          if (elsewhere === undefined) return yield* Effect.fail(new NotFound({ resource: "agent", id: request.agentId }))
          return yield* Effect.fail(
            new ValidationError({ message: `agentId: agent ${request.agentId} acts through wallet ${elsewhere.agent.walletId}, not ${request.walletId}`, field: "agentId" })
          )
        }
        if (owners.length > 1) {
          return yield* Effect.fail(
            new ValidationError({ message: `agentId: wallet ${request.walletId} is used by ${owners.length} agents; name the one acting`, field: "agentId" })
          )
        }
        return owners[0] as StoredAgent | undefined
      })

    const create = (caller: CallerInfo, request: AcceptedRequest, manifest: unknown) =>
      Effect.gen(function* () {
        // Treasury intents are budget bookkeeping, not a spend from the wallet: they get exactly the checks of
        // /api/v1/treasury/* (the treasury scope and an operator credential, treasuryRights.ts), whatever wallet they name.
        const treasury = treasuryRefusal(caller, request.type)
        if (treasury !== undefined) return yield* Effect.fail(treasury)
        if (TREASURY_TYPES.has(request.type)) return yield* transactions.create(caller, request)
        const self = actingAgent(caller)
        if (self === null && request.agentId === undefined) {
          // Most spends name no agent and come from a wallet no agent acts through: the insert checks that in
          // its own statement (one round trip, not a read before it); a governed wallet goes the agent's way below.
          const created = yield* transactions.createIfUngoverned(caller, request)
          if (created !== undefined) return created
        }
        if (self !== null && request.agentId !== undefined && request.agentId !== self) return yield* Effect.fail(notOwnWallet(self))
        const agent = yield* governingAgent(caller, request)
        if (self !== null && agent?.agent.id !== self) return yield* Effect.fail(notOwnWallet(self))
        if (agent === undefined) return yield* transactions.create(caller, request)
        return yield* execution.executeRequest(caller, agent, request, manifest)
      }).pipe(hotSpan(exporting, "WalletSpend.create"))

    return { create }
  })
}) {}
