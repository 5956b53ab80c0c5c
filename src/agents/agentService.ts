/**
 * The agent registry: create (with a new wallet when none is given), read within the caller's tenant,
 * capabilities, the state table's transitions (a refused one is a 400 naming the current state), the
 * budget view, and the automatic pause the supervisor applies after a breach.
 */
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { Autonomy, type AgentStatus, type CreateAgentBody, type UpdateCapabilitiesBody } from "../../schemas/agent.js"
import { Conflict, Forbidden, InvalidState, NotFound, PolicyViolation, ValidationError } from "../../schemas/errors.js"
import { SqlClient } from "@effect/sql"
import { type AgentKeyRequest, DEFAULT_AGENT_KEY_SCOPES } from "../../schemas/apiKey.js"
import { AuditLog } from "../audit/auditLog.js"
import { AppConfig } from "../config.js"
import type { PageRequest } from "../db/keysetPage.js"
import { hasScope } from "../gateway/apiKeys.js"
import { actingAgent, type CallerInfo } from "../gateway/caller.js"
import { KeyService } from "../keys/keyService.js"
import { WalletService } from "../wallet/walletService.js"
import { AgentRepo } from "./agentRepo.js"
import type { StoredAgent } from "./agentRow.js"
import { AGENT_TRANSITIONS, invalidTransitionMessage, type AgentAction } from "./agentTransitions.js"
import { AgentBudgets } from "./budgets.js"
import { Strategy } from "./strategy.js"
import { ValueLimitStore } from "../risk/valueLimits.js"
import { idempotencyKeyTaken } from "../gateway/idempotencyKeyRefusal.js"

const DEFAULT_AUTONOMY = Schema.decodeUnknownSync(Autonomy)({})
const MAX_LABEL = 128

export class AgentService extends Effect.Service<AgentService>()("AgentService", {
  dependencies: [AgentRepo.Default, AgentBudgets.Default, Strategy.Default, KeyService.Default, WalletService.Default, ValueLimitStore.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AgentRepo
    const wallets = yield* WalletService
    const budgets = yield* AgentBudgets
    const valueLimits = yield* ValueLimitStore
    const strategy = yield* Strategy
    const audit = yield* AuditLog
    const config = yield* AppConfig
    const keys = yield* KeyService
    const sql = yield* SqlClient.SqlClient

    const event = (stored: StoredAgent, eventType: string, message: string, metadata: Record<string, unknown>, traceId?: string) =>
      audit.record({
        tenantId: stored.tenantId, eventType, message, metadata, agentId: stored.agent.id, walletId: stored.agent.walletId,
        entityType: "agent", category: "agent", traceId: traceId ?? null
      })

    /** A status change and its event, in one SQL transaction: a crash never leaves one without the other. */
    const transitionRecorded = (
      id: string, readTenant: string | null, from: ReadonlyArray<AgentStatus>, to: AgentStatus, pausedReason: string | null,
      record: (moved: StoredAgent) => Effect.Effect<void>
    ) =>
      sql
        .withTransaction(Effect.tap(repo.transition(id, readTenant, from, to, pausedReason), (moved) => (moved === undefined ? Effect.void : record(moved))))
        .pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))

    /** An agent the caller may see: its tenant's, and for an agent's credential only that agent. */
    const get = (caller: CallerInfo, id: string) => {
      const self = actingAgent(caller)
      if (self !== null && self !== id) return Effect.fail(new NotFound({ resource: "agent", id }))
      return Effect.flatMap(repo.find(id, caller.readTenant), (stored) =>
        stored === undefined ? Effect.fail(new NotFound({ resource: "agent", id })) : Effect.succeed(stored)
      )
    }

    /** The agent's own key, checked before anything is made: a refused key request creates no wallet and no agent. */
    const agentKeyGrant = (caller: CallerInfo, tenant: string, agentId: string, name: string, request: AgentKeyRequest) => {
      if (!hasScope(caller, "keys")) {
        return Effect.fail(new Forbidden({ message: "apiKey: issuing the agent's key needs the 'keys' scope" }))
      }
      const grant = { tenant, agentId, scopes: request.scopes ?? DEFAULT_AGENT_KEY_SCOPES, expiresAt: request.expiresAt, label: request.label ?? `agent ${name}`.slice(0, MAX_LABEL) }
      return keys.prepare(caller, grant, { agentIsNew: true }).pipe(
        Effect.mapError((error) =>
          error._tag === "ValidationError"
            ? new ValidationError({ message: `apiKey.${error.message}`, field: `apiKey.${error.field ?? ""}` })
            : error._tag === "Forbidden" ? new Forbidden({ message: `apiKey.${error.message}` }) : error
        )
      )
    }

    /**
     * The agent an earlier create with the key made (`created: false`, as it stands now); a 400 when it asked
     * something else, a 409 when it also issued the agent's API key, whose secret only its answer showed.
     */
    const madeBefore = (tenantId: string, key: string, request: string) =>
      Effect.gen(function* () {
        const earlier = yield* repo.byIdempotencyKey(tenantId, key)
        if (earlier === undefined) return yield* Effect.fail(idempotencyKeyTaken(key, undefined))
        const { id } = earlier.stored.agent
        if (earlier.request !== request) {
          return yield* Effect.fail(idempotencyKeyTaken(key, { resource: "agent", id }))
        }
        if ((JSON.parse(request) as { apiKey?: unknown }).apiKey !== undefined) {
          return yield* Effect.fail(new Conflict({
            message: `agent ${id} was made by this create, with an API key whose secret only that answer showed: rotate the agent's key (GET /api/v1/keys?agentId=${id}, then POST /api/v1/keys/<keyId>/rotate) to get a new secret`,
            currentState: earlier.stored.agent.status
          }))
        }
        return { agent: earlier.stored.agent, created: false }
      })

    /**
     * A new agent (`created`), or, for an `idempotencyKey` its tenant used before with the same request, the
     * agent it made (a create whose answer was lost, sent again). A new wallet made for it is keyed too, so
     * two creates racing with one key make one wallet as well as one agent.
     */
    const create = (caller: CallerInfo, body: CreateAgentBody) =>
      Effect.gen(function* () {
        const id = randomUUID()
        // A given wallet must be visible to the caller; the agent lives in that wallet's tenant.
        const tenantId = body.walletId === undefined ? caller.tenant : (yield* wallets.get(caller, body.walletId)).tenantId
        const { idempotencyKey: key, ...asked } = body
        const request = JSON.stringify(asked, (_name, value: unknown) => (typeof value === "bigint" ? value.toString() : value))
        if (key !== undefined && (yield* repo.byIdempotencyKey(tenantId, key)) !== undefined) return yield* madeBefore(tenantId, key, request)
        const keyGrant = body.apiKey === undefined ? undefined : yield* agentKeyGrant(caller, tenantId, id, body.name, body.apiKey)
        const walletId = body.walletId ?? (yield* wallets.create(caller, {
          label: `agent ${body.name}`.slice(0, MAX_LABEL), autoFund: false, ...(key === undefined ? {} : { idempotencyKey: `agent:${key}`.slice(0, 128) })
        })).wallet.id
        // The agent, its event and its key commit together.
        const created = yield* sql.withTransaction(
          Effect.gen(function* () {
            const stored = yield* repo.insert({
              id,
              tenantId,
              name: body.name,
              walletId,
              executionMode: body.executionMode,
              allowedIntents: body.allowedIntents,
              allowedProtocols: body.allowedProtocols,
              budgetLamports: body.budgetLamports,
              autonomy: body.autonomy ?? DEFAULT_AUTONOMY,
              idempotency: key === undefined ? undefined : { key, request }
            })
            if (stored === undefined) return undefined
            yield* event(stored, "agent.created", `agent ${stored.agent.id} created`, {
              name: body.name, walletCreated: body.walletId === undefined, executionMode: body.executionMode,
              allowedIntents: body.allowedIntents, budgetLamports: body.budgetLamports ?? null, apiKeyIssued: keyGrant !== undefined
            }, caller.traceId)
            const apiKey = keyGrant === undefined ? undefined : yield* keys.store(caller, keyGrant, null)
            return { stored, apiKey }
          })
        ).pipe(Effect.catchTag("SqlError", (error) => Effect.die(error)))
        // undefined: a create with the same key committed first (two sent at once)
        if (created === undefined) return yield* madeBefore(tenantId, key ?? "", request)
        const { stored, apiKey } = created
        if (apiKey === undefined) return { agent: stored.agent, created: true }
        yield* keys.announce(apiKey.id)
        return { agent: { ...stored.agent, apiKey }, created: true }
      }).pipe(Effect.withSpan("AgentService.create"))

    const list = (caller: CallerInfo, page: PageRequest) => repo.list(caller.readTenant, page, actingAgent(caller))

    const updateCapabilities = (caller: CallerInfo, id: string, body: UpdateCapabilitiesBody) =>
      Effect.gen(function* () {
        const before = yield* get(caller, id)
        const after = yield* repo.updateCapabilities(id, caller.readTenant, body)
        if (after === undefined) return yield* Effect.fail(new NotFound({ resource: "agent", id }))
        yield* event(after, "agent.capabilities_updated", `agent ${id} capabilities updated`, {
          allowedIntents: body.allowedIntents, allowedProtocols: body.allowedProtocols ?? null,
          executionMode: after.agent.executionMode, autonomyChanged: body.autonomy !== undefined
        }, caller.traceId)
        if (body.budgetLamports !== undefined) {
          yield* budgets.budgetEvent(after.tenantId, id, "agent.budget.updated", `agent ${id} budget set to ${body.budgetLamports} lamports`, {
            change: "set", budgetLamportsBefore: before.agent.budgetLamports ?? null, budgetLamports: body.budgetLamports, traceId: caller.traceId
          })
        }
        return after.agent
      }).pipe(Effect.withSpan("AgentService.updateCapabilities"))

    /** AGENT_REQUIRE_BACKTEST_PASS: an autonomous agent starts only with a passing backtest on its wallet. */
    const checkBacktestGate = (stored: StoredAgent) =>
      Effect.gen(function* () {
        if (!config.agents.requireBacktestPass || stored.agent.executionMode !== "autonomous") return
        if (yield* strategy.hasPassingBacktest(stored.tenantId, stored.agent.walletId)) return
        return yield* Effect.fail(
          new PolicyViolation({
            message: `agent ${stored.agent.id} cannot start: AGENT_REQUIRE_BACKTEST_PASS requires a passing backtest on wallet ${stored.agent.walletId}`
          })
        )
      })

    const refuse = (caller: CallerInfo, id: string, action: AgentAction) =>
      Effect.flatMap(get(caller, id), (current) =>
        Effect.fail(new InvalidState({ message: invalidTransitionMessage(action, current.agent.status), currentState: current.agent.status }))
      )

    /** start / stop / pause / resume as the state table allows; anything else is a 400 naming the current state. */
    const transition = (caller: CallerInfo, id: string, action: AgentAction, reason?: string) =>
      Effect.gen(function* () {
        const current = yield* get(caller, id)
        const rule = AGENT_TRANSITIONS[action]
        if (!rule.from.includes(current.agent.status)) return yield* refuse(caller, id, action)
        if (action === "start") yield* checkBacktestGate(current)
        const pausedReason = action === "pause" ? (reason ?? "paused by operator") : null
        const moved = yield* transitionRecorded(id, caller.readTenant, rule.from, rule.to, pausedReason, (moved) =>
          event(moved, rule.eventType, `agent ${id} ${rule.done}`, {
            from: current.agent.status, to: rule.to, ...(pausedReason === null ? {} : { reason: pausedReason }), automatic: false
          }, caller.traceId)
        )
        if (moved === undefined) return yield* refuse(caller, id, action)
        return moved.agent
      }).pipe(Effect.withSpan(`AgentService.${action}`))

    /** Today's budget, and the agent's value limits with their use now (issue 34). */
    const budget = (caller: CallerInfo, id: string) =>
      Effect.flatMap(get(caller, id), (stored) =>
        Effect.zipWith(budgets.view(stored), valueLimits.state("agent", stored.agent.id, stored.tenantId, new Date()), (view, limits) => ({ ...view, valueLimits: limits.limits }))
      )

    /**
     * The automatic pause of the state table (supervisor): a running autonomous agent becomes paused with
     * the breach as its reason. Answers the new status, or the unchanged one when nothing applied.
     */
    const pauseForBreach = (agentId: string, reason: string) =>
      Effect.gen(function* () {
        const current = yield* repo.findSystem(agentId)
        if (current === undefined) return undefined
        if (current.agent.executionMode !== "autonomous") return current.agent.status
        const moved = yield* transitionRecorded(agentId, null, ["running"], "paused", reason, (moved) =>
          event(moved, "agent.paused", `agent ${agentId} paused automatically: ${reason}`, { from: "running", to: "paused", reason, automatic: true })
        )
        if (moved === undefined) return current.agent.status
        return "paused" as AgentStatus
      }).pipe(Effect.withSpan("AgentService.pauseForBreach"))

    /**
     * An operator's freeze (docs/decisions/freeze.md): every running agent of the frozen tenant, wallet or
     * agent becomes paused with the freeze as its reason, whatever its mode. Answers the ids it paused;
     * resuming them is the operator's act, after the freeze is lifted.
     */
    const pauseForFreeze = (freeze: { readonly id: string; readonly tenantId: string; readonly scope: string; readonly targetId: string; readonly reason: string }) =>
      Effect.gen(function* () {
        const inScope = (yield* repo.runningOfTenant(freeze.tenantId)).filter((agent) =>
          (freeze.scope === "tenant" || (freeze.scope === "wallet" && agent.walletId === freeze.targetId) || (freeze.scope === "agent" && agent.id === freeze.targetId))
        )
        const reason = `frozen by operator (freeze ${freeze.id}): ${freeze.reason}`
        const paused: Array<string> = []
        for (const agent of inScope) {
          const moved = yield* transitionRecorded(agent.id, freeze.tenantId, ["running"], "paused", reason, (moved) =>
            event(moved, "agent.paused", `agent ${agent.id} paused: ${reason}`, { from: "running", to: "paused", reason, automatic: true, freezeId: freeze.id })
          )
          if (moved === undefined) continue
          paused.push(agent.id)
        }
        return paused
      }).pipe(Effect.withSpan("AgentService.pauseForFreeze"))

    return { create, get, list, updateCapabilities, transition, budget, pauseForBreach, pauseForFreeze }
  })
}) {}
