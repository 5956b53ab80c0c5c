/**
 * Treasury: budget bookkeeping between agents, no on-chain move. Allocate without a source raises the
 * target's budget (an agent without one starts from 0); with a source, and rebalance, it moves budget
 * from one agent to another. Both rows are locked in id order inside one SQL transaction, so concurrent
 * moves never deadlock and never create or destroy budget; the before/after figures are the locked ones.
 * Also what the transaction types treasury_allocate / treasury_rebalance map onto (`moveBudget`).
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { U64_MAX } from "../../schemas/common.js"
import { NotFound, ValidationError } from "../../schemas/errors.js"
import type { AllocateBody, AllocateResult, RebalanceBody, RebalanceResult } from "../../schemas/treasury.js"
import { AuditLog } from "../audit/auditLog.js"
import type { CallerInfo } from "../gateway/caller.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

/** Who asks: the tenant filter of the agents (null = every tenant) and the trace to stamp events with. */
export type TreasuryActor = Pick<CallerInfo, "readTenant" | "traceId">

export interface BudgetMove {
  readonly kind: "allocate" | "rebalance"
  readonly sourceAgentId?: string
  readonly targetAgentId: string
  readonly lamports: bigint
  readonly reason: string
  /** Set when a pipeline transaction (treasury_allocate / treasury_rebalance) performed it. */
  readonly txId?: string
}

export interface BudgetMoveResult {
  readonly id: string
  readonly tenantId: string
  readonly timestamp: string
  readonly targetBudgetBefore: bigint
  readonly targetBudgetAfter: bigint
  readonly sourceBudgetBefore?: bigint
  readonly sourceBudgetAfter?: bigint
}

const LockedAgent = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  budget: Schema.NullOr(Schema.String)
})
type LockedAgent = typeof LockedAgent.Type

const OperationCreatedRow = Schema.Struct({ created_at: Timestamp })

export class Treasury extends Effect.Service<Treasury>()("Treasury", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog

    const setBudget = (id: string, lamports: bigint) =>
      sql`UPDATE agents SET budget_lamports = ${lamports.toString()}::numeric, budget_updated_at = now(), updated_at = now() WHERE id = ${id}`

    const moveInTransaction = (actor: TreasuryActor, move: BudgetMove) =>
      Effect.gen(function* () {
        const ids = move.sourceAgentId === undefined ? [move.targetAgentId] : [move.sourceAgentId, move.targetAgentId]
        const locked = yield* sql`
          SELECT id, tenant_id, budget_lamports::text AS budget FROM agents
          WHERE id IN ${sql.in(ids)} ${actor.readTenant === null ? sql`` : sql`AND tenant_id = ${actor.readTenant}`}
          ORDER BY id FOR UPDATE
        `.pipe(decodeRows("agents", LockedAgent))
        const byId = new Map(locked.map((row) => [row.id, row]))
        const target = byId.get(move.targetAgentId)
        if (target === undefined) return yield* Effect.fail(new NotFound({ resource: "agent", id: move.targetAgentId }))
        const source = move.sourceAgentId === undefined ? undefined : byId.get(move.sourceAgentId)
        if (move.sourceAgentId !== undefined && source === undefined) {
          return yield* Effect.fail(new NotFound({ resource: "agent", id: move.sourceAgentId }))
        }
        if (source !== undefined && source.tenant_id !== target.tenant_id) {
          return yield* Effect.fail(new ValidationError({ message: "sourceAgentId: belongs to another tenant than targetAgentId", field: "sourceAgentId" }))
        }
        const targetBefore = BigInt(target.budget ?? "0")
        const sourceBefore = source === undefined ? undefined : BigInt(source.budget ?? "0")
        if (source !== undefined && sourceBefore !== undefined && sourceBefore < move.lamports) {
          return yield* Effect.fail(
            new ValidationError({
              message: `lamports: source agent ${source.id} has a budget of ${sourceBefore} lamports, less than ${move.lamports}`,
              field: "lamports"
            })
          )
        }
        const targetAfter = targetBefore + move.lamports
        if (targetAfter > U64_MAX) {
          return yield* Effect.fail(
            new ValidationError({
              message: `lamports: would raise agent ${target.id}'s budget of ${targetBefore} lamports past ${U64_MAX} (u64)`,
              field: "lamports"
            })
          )
        }
        const sourceAfter = sourceBefore === undefined ? undefined : sourceBefore - move.lamports
        if (source !== undefined && sourceAfter !== undefined) yield* setBudget(source.id, sourceAfter)
        yield* setBudget(target.id, targetAfter)
        const id = randomUUID()
        const [row] = yield* sql`
          INSERT INTO treasury_operations (id, tenant_id, kind, source_agent_id, target_agent_id, lamports, reason,
            source_budget_before, source_budget_after, target_budget_before, target_budget_after, tx_id)
          VALUES (${id}, ${target.tenant_id}, ${move.kind}, ${source?.id ?? null}, ${target.id}, ${move.lamports.toString()}::numeric,
            ${move.reason}, ${sourceBefore?.toString() ?? null}::numeric, ${sourceAfter?.toString() ?? null}::numeric,
            ${targetBefore.toString()}::numeric, ${targetAfter.toString()}::numeric, ${move.txId ?? null})
          RETURNING created_at
        `.pipe(decodeRows("treasury_operations", OperationCreatedRow))
        const result: BudgetMoveResult = {
          id,
          tenantId: target.tenant_id,
          timestamp: row.created_at.toISOString(),
          targetBudgetBefore: targetBefore,
          targetBudgetAfter: targetAfter,
          ...(sourceBefore === undefined || sourceAfter === undefined ? {} : { sourceBudgetBefore: sourceBefore, sourceBudgetAfter: sourceAfter })
        }
        return result
      })

    const budgetUpdated = (actor: TreasuryActor, tenantId: string, agentId: string, before: bigint, after: bigint, move: BudgetMove, operationId: string) =>
      audit.record({
        tenantId, eventType: "agent.budget.updated", message: `agent ${agentId} budget ${before} -> ${after} lamports (treasury ${move.kind})`,
        metadata: { change: `treasury.${move.kind}`, operationId, budgetLamportsBefore: before, budgetLamports: after, reason: move.reason },
        agentId, txId: move.txId ?? null, entityType: "agent", category: "budget", traceId: actor.traceId
      })

    /** One budget move, atomic, then its events (treasury.<kind> and agent.budget.updated per agent). */
    const moveBudget = (actor: TreasuryActor, move: BudgetMove) =>
      Effect.gen(function* () {
        const result = yield* sql.withTransaction(moveInTransaction(actor, move)).pipe(Effect.catchTag("SqlError", Effect.die))
        yield* audit.record({
          tenantId: result.tenantId, eventType: `treasury.${move.kind}`,
          message: `treasury ${move.kind} of ${move.lamports} lamports to agent ${move.targetAgentId}${move.sourceAgentId === undefined ? "" : ` from agent ${move.sourceAgentId}`}`,
          metadata: { operationId: result.id, lamports: move.lamports, reason: move.reason, sourceAgentId: move.sourceAgentId ?? null, targetAgentId: move.targetAgentId },
          agentId: move.targetAgentId, txId: move.txId ?? null, entityType: "treasury", category: "treasury", traceId: actor.traceId
        })
        yield* budgetUpdated(actor, result.tenantId, move.targetAgentId, result.targetBudgetBefore, result.targetBudgetAfter, move, result.id)
        if (move.sourceAgentId !== undefined && result.sourceBudgetBefore !== undefined && result.sourceBudgetAfter !== undefined) {
          yield* budgetUpdated(actor, result.tenantId, move.sourceAgentId, result.sourceBudgetBefore, result.sourceBudgetAfter, move, result.id)
        }
        return result
      }).pipe(Effect.withSpan(`Treasury.${move.kind}`))

    const allocate = (actor: TreasuryActor, body: AllocateBody) =>
      Effect.map(
        moveBudget(actor, { kind: "allocate", targetAgentId: body.targetAgentId, lamports: body.lamports, reason: body.reason, ...(body.sourceAgentId === undefined ? {} : { sourceAgentId: body.sourceAgentId }) }),
        (result): AllocateResult => ({
          allocationId: result.id,
          targetAgentId: body.targetAgentId,
          ...(body.sourceAgentId === undefined ? {} : { sourceAgentId: body.sourceAgentId }),
          lamports: body.lamports,
          reason: body.reason,
          timestamp: result.timestamp,
          targetBudgetBefore: result.targetBudgetBefore,
          targetBudgetAfter: result.targetBudgetAfter,
          ...(result.sourceBudgetBefore === undefined ? {} : { sourceBudgetBefore: result.sourceBudgetBefore }),
          ...(result.sourceBudgetAfter === undefined ? {} : { sourceBudgetAfter: result.sourceBudgetAfter })
        })
      )

    const rebalance = (actor: TreasuryActor, body: RebalanceBody) =>
      Effect.map(
        moveBudget(actor, { kind: "rebalance", sourceAgentId: body.sourceAgentId, targetAgentId: body.targetAgentId, lamports: body.lamports, reason: body.reason }),
        (result): RebalanceResult => ({
          rebalanceId: result.id,
          sourceAgentId: body.sourceAgentId,
          targetAgentId: body.targetAgentId,
          lamports: body.lamports,
          reason: body.reason,
          timestamp: result.timestamp,
          sourceBudgetBefore: result.sourceBudgetBefore ?? 0n,
          sourceBudgetAfter: result.sourceBudgetAfter ?? 0n,
          targetBudgetBefore: result.targetBudgetBefore,
          targetBudgetAfter: result.targetBudgetAfter
        })
      )

    return { allocate, rebalance, moveBudget }
  })
}) {}
