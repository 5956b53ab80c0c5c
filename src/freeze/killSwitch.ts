/**
 * The kill switch (issue 34 item 3, docs/decisions/freeze.md): one operator call freezes a tenant, a wallet
 * or an agent. The freeze commits with its `freeze.applied` audit event (and so its webhook) under the
 * tenant's freeze lock, after every signing of the tenant in progress has finished; from then on nothing
 * of the scope is signed (the signer, in this process or the wallet engine's, checks under the same lock),
 * new requests are refused naming the freeze, and right after the commit the scope's transactions waiting
 * at the approval gate fail and its running agents pause. Lifting is an operator act too.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { NotFound, ValidationError } from "../../schemas/errors.js"
import type { Freeze, FreezeCreate, FreezeLift, FreezeScope } from "../../schemas/freeze.js"
import { AgentBudgets } from "../agents/budgets.js"
import { AgentRepo } from "../agents/agentRepo.js"
import { AgentService } from "../agents/agentService.js"
import { AuditLog } from "../audit/auditLog.js"
import type { PageRequest } from "../db/keysetPage.js"
import type { CallerInfo } from "../gateway/caller.js"
import { FrozenGate } from "../pipeline/frozenGate.js"
import { SigningFreezes } from "../wallet/signingFreezes.js"
import { WalletRepo } from "../wallet/walletRepo.js"

export class KillSwitch extends Effect.Service<KillSwitch>()("KillSwitch", {
  dependencies: [SigningFreezes.Default, WalletRepo.Default, AgentRepo.Default, AgentService.Default, AgentBudgets.Default, FrozenGate.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const freezes = yield* SigningFreezes
    const wallets = yield* WalletRepo
    const agents = yield* AgentRepo
    const agentService = yield* AgentService
    const budgets = yield* AgentBudgets
    const gate = yield* FrozenGate
    const audit = yield* AuditLog

    /** The tenant a tenant freeze names: the caller's own (a bound key), or any tenant that has a wallet or an agent. */
    const tenantTarget = (caller: CallerInfo, targetId: string | undefined) =>
      Effect.gen(function* () {
        if (caller.readTenant !== null) {
          if (targetId !== undefined && targetId !== caller.readTenant) return yield* Effect.fail(new NotFound({ resource: "tenant", id: targetId }))
          return caller.readTenant
        }
        if (targetId === undefined) {
          return yield* Effect.fail(new ValidationError({ message: "targetId: a deployment-wide key names the tenant to freeze", field: "targetId" }))
        }
        const hasWallet = (yield* wallets.list(targetId, { limit: 1, offset: 0 })).total > 0
        const hasAgent = hasWallet || (yield* agents.list(targetId, { limit: 1, offset: 0 }, null)).total > 0
        return hasAgent ? targetId : yield* Effect.fail(new NotFound({ resource: "tenant", id: targetId }))
      })

    /** The freeze's tenant and target id; 404 when the scope does not exist or the caller may not see it. */
    const resolveTarget = (caller: CallerInfo, scope: FreezeScope, targetId: string | undefined) =>
      Effect.gen(function* () {
        if (scope === "tenant") {
          const tenant = yield* tenantTarget(caller, targetId)
          return { tenantId: tenant, targetId: tenant }
        }
        if (targetId === undefined) return yield* Effect.fail(new ValidationError({ message: `targetId: required to freeze a ${scope}`, field: "targetId" }))
        const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
        if (!uuid.test(targetId)) return yield* Effect.fail(new ValidationError({ message: `targetId: must be the ${scope}'s id (a UUID)`, field: "targetId" }))
        const id = targetId.toLowerCase()
        if (scope === "wallet") {
          const wallet = yield* wallets.find(id, caller.readTenant)
          return wallet === undefined ? yield* Effect.fail(new NotFound({ resource: "wallet", id })) : { tenantId: wallet.tenantId, targetId: id }
        }
        const agent = yield* agents.find(id, caller.readTenant)
        return agent === undefined ? yield* Effect.fail(new NotFound({ resource: "agent", id })) : { tenantId: agent.tenantId, targetId: id }
      })

    const subjectOf = (freeze: Freeze) => ({
      walletId: freeze.scope === "wallet" ? freeze.targetId : null,
      agentId: freeze.scope === "agent" ? freeze.targetId : null
    })

    /** Freezes the scope; answers the freeze and whether this call created it (an active freeze of the scope is answered as it is). */
    const freeze = (caller: CallerInfo, body: FreezeCreate) =>
      Effect.gen(function* () {
        const target = yield* resolveTarget(caller, body.scope, body.targetId)
        const committed = yield* sql.withTransaction(
          Effect.gen(function* () {
            const made = yield* freezes.freeze({ ...target, scope: body.scope, reason: body.reason, frozenBy: caller.keyId })
            if (made.created) {
              yield* audit.record({
                tenantId: made.freeze.tenantId, eventType: "freeze.applied",
                message: `${made.freeze.scope} ${made.freeze.targetId} frozen: ${made.freeze.reason}`,
                metadata: { freezeId: made.freeze.id, scope: made.freeze.scope, targetId: made.freeze.targetId, reason: made.freeze.reason, frozenBy: caller.keyId },
                ...subjectOf(made.freeze), entityType: "freeze", category: "risk", traceId: caller.traceId
              })
            }
            return made
          })
        ).pipe(Effect.orDie)
        if (!committed.created) return { freeze: committed.freeze, created: false }
        // After the commit: nothing of the scope can be signed any more; what waits is failed and what runs is paused.
        const failedAtGate = yield* gate.failWaiting(committed.freeze)
        const pausedAgents = yield* agentService.pauseForFreeze(committed.freeze)
        yield* budgets.releaseFailedReservations
        return { freeze: { ...committed.freeze, effects: { failedAtGate, pausedAgents } }, created: true }
      }).pipe(Effect.withSpan("KillSwitch.freeze"))

    /** Lifts an active freeze (404 when there is none with this id the caller may see). */
    const lift = (caller: CallerInfo, freezeId: string, body: FreezeLift) =>
      Effect.gen(function* () {
        const lifted = yield* sql.withTransaction(
          Effect.gen(function* () {
            const row = yield* freezes.lift(freezeId, caller.readTenant, { unfrozenBy: caller.keyId, reason: body.reason ?? null })
            if (row === undefined) return undefined
            yield* audit.record({
              tenantId: row.tenantId, eventType: "freeze.lifted", message: `${row.scope} ${row.targetId} unfrozen${body.reason === undefined ? "" : `: ${body.reason}`}`,
              metadata: { freezeId: row.id, scope: row.scope, targetId: row.targetId, reason: body.reason ?? null, unfrozenBy: caller.keyId },
              ...subjectOf(row), entityType: "freeze", category: "risk", traceId: caller.traceId
            })
            return row
          })
        ).pipe(Effect.orDie)
        if (lifted !== undefined) return lifted
        const existing = yield* freezes.find(freezeId, caller.readTenant)
        return existing === undefined ? yield* Effect.fail(new NotFound({ resource: "active freeze", id: freezeId })) : existing
      }).pipe(Effect.withSpan("KillSwitch.lift"))

    const get = (caller: CallerInfo, freezeId: string) =>
      Effect.flatMap(freezes.find(freezeId, caller.readTenant), (found) =>
        found === undefined ? Effect.fail(new NotFound({ resource: "freeze", id: freezeId })) : Effect.succeed(found)
      )

    const list = (caller: CallerInfo, options: PageRequest & { readonly activeOnly: boolean }) => freezes.list(caller.readTenant, options)

    return { freeze, lift, get, list }
  })
}) {}
