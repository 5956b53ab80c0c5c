/**
 * Treasury: budget bookkeeping between agents, no on-chain move. Allocate without a source raises the
 * target's budget (an agent without one starts from 0); with a source, and rebalance, it moves budget
 * from one agent to another. Both rows are locked in id order inside one SQL transaction, so concurrent
 * moves never deadlock and never create or destroy budget; the before/after figures are the locked ones.
 * Also what the transaction types treasury_allocate / treasury_rebalance map onto (`moveBudget`).
 * A move happens once: one made for a pipeline transaction is found again by its txId (a worker that
 * runs the transaction again after its confirmation was lost), one sent with an idempotency key by the
 * key (a request repeated after a lost answer); either answers the stored move, and changes nothing.
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
import { idempotencyKeyTaken } from "../gateway/idempotencyKeyRefusal.js"

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
  /** The caller's key for this move (per tenant): a repeat answers the move it made. */
  readonly idempotencyKey?: string
}

export interface BudgetMoveResult {
  readonly id: string
  readonly tenantId: string
  readonly timestamp: string
  readonly targetBudgetBefore: bigint
  readonly targetBudgetAfter: bigint
  readonly sourceBudgetBefore?: bigint
  readonly sourceBudgetAfter?: bigint
  /** False when the move was made before (the same txId or idempotency key) and is only answered again. */
  readonly created: boolean
}

const LockedAgent = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  budget: Schema.NullOr(Schema.String)
})
type LockedAgent = typeof LockedAgent.Type

const OperationCreatedRow = Schema.Struct({ created_at: Timestamp })

const OperationRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  kind: Schema.String,
  source_agent_id: Schema.NullOr(Schema.String),
  target_agent_id: Schema.String,
  lamports: Schema.String,
  reason: Schema.String,
  source_budget_before: Schema.NullOr(Schema.String),
  source_budget_after: Schema.NullOr(Schema.String),
  target_budget_before: Schema.String,
  target_budget_after: Schema.String,
  created_at: Timestamp
})
type OperationRow = typeof OperationRow.Type

/** A stored move as its answer (made before: `created` false). */
const answerOf = (row: OperationRow): BudgetMoveResult => ({
  id: row.id,
  tenantId: row.tenant_id,
  timestamp: row.created_at.toISOString(),
  targetBudgetBefore: BigInt(row.target_budget_before),
  targetBudgetAfter: BigInt(row.target_budget_after),
  ...(row.source_budget_before === null || row.source_budget_after === null
    ? {}
    : { sourceBudgetBefore: BigInt(row.source_budget_before), sourceBudgetAfter: BigInt(row.source_budget_after) }),
  created: false
})

/** Whether a stored move is the one `move` asks for (a key used again for another move is refused). */
const sameMove = (row: OperationRow, move: BudgetMove) =>
  row.kind === move.kind &&
  row.source_agent_id === (move.sourceAgentId ?? null) &&
  row.target_agent_id === move.targetAgentId &&
  BigInt(row.lamports) === move.lamports &&
  row.reason === move.reason

export class Treasury extends Effect.Service<Treasury>()("Treasury", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const audit = yield* AuditLog

    const setBudget = (id: string, lamports: bigint) =>
      sql`UPDATE agents SET budget_lamports = ${lamports.toString()}::numeric, budget_updated_at = now(), updated_at = now() WHERE id = ${id}`

    /** The move made before for the same pipeline transaction, or with the same key in this tenant. */
    const madeBefore = (tenantId: string, move: BudgetMove) =>
      move.txId === undefined && move.idempotencyKey === undefined
        ? Effect.succeed([] as ReadonlyArray<OperationRow>)
        : sql`
            SELECT id, tenant_id, kind, source_agent_id, target_agent_id, lamports::text AS lamports, reason,
              source_budget_before::text AS source_budget_before, source_budget_after::text AS source_budget_after,
              target_budget_before::text AS target_budget_before, target_budget_after::text AS target_budget_after, created_at
            FROM treasury_operations
            WHERE ${move.txId === undefined ? sql`tenant_id = ${tenantId} AND idempotency_key = ${move.idempotencyKey ?? ""}` : sql`tx_id = ${move.txId}`}
          `.pipe(decodeRows("treasury_operations", OperationRow))

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
        // Made before (the agents' locks order it after that move's commit): answered, not made again.
        const [earlier] = yield* madeBefore(target.tenant_id, move)
        if (earlier !== undefined) {
          if (move.txId === undefined && !sameMove(earlier, move)) return yield* Effect.fail(idempotencyKeyTaken(move.idempotencyKey ?? "", { resource: "treasury operation", id: earlier.id }))
          return answerOf(earlier)
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
        // A key used at once for a move of other agents (not ordered by these locks) conflicts here: refused.
        const [row] = yield* sql`
          INSERT INTO treasury_operations (id, tenant_id, kind, source_agent_id, target_agent_id, lamports, reason,
            source_budget_before, source_budget_after, target_budget_before, target_budget_after, tx_id, idempotency_key)
          VALUES (${id}, ${target.tenant_id}, ${move.kind}, ${source?.id ?? null}, ${target.id}, ${move.lamports.toString()}::numeric,
            ${move.reason}, ${sourceBefore?.toString() ?? null}::numeric, ${sourceAfter?.toString() ?? null}::numeric,
            ${targetBefore.toString()}::numeric, ${targetAfter.toString()}::numeric, ${move.txId ?? null}, ${move.idempotencyKey ?? null})
          ON CONFLICT DO NOTHING
          RETURNING created_at
        `.pipe(decodeRows("treasury_operations", OperationCreatedRow))
        if (row === undefined) {
          return yield* Effect.fail(
            idempotencyKeyTaken(move.idempotencyKey ?? "", undefined)
          )
        }
        const result: BudgetMoveResult = {
          created: true,
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

    /** Its events (treasury.<kind> and agent.budget.updated per agent), written with it. */
    const recordMove = (actor: TreasuryActor, move: BudgetMove, result: BudgetMoveResult) =>
      Effect.gen(function* () {
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
      })

    /** One budget move and its events, atomic (a move made before is answered again, with no event). */
    const moveBudget = (actor: TreasuryActor, move: BudgetMove) =>
      sql
        .withTransaction(
          Effect.tap(moveInTransaction(actor, move), (result) => (result.created ? recordMove(actor, move, result) : Effect.void))
        )
        .pipe(Effect.catchTag("SqlError", Effect.die), Effect.withSpan(`Treasury.${move.kind}`))

    const keyOf = (body: { readonly idempotencyKey?: string }) => (body.idempotencyKey === undefined ? {} : { idempotencyKey: body.idempotencyKey })

    /** An allocation, and whether it was made now (false: the key's earlier one, answered again). */
    const allocate = (actor: TreasuryActor, body: AllocateBody) =>
      Effect.map(
        moveBudget(actor, {
          kind: "allocate", targetAgentId: body.targetAgentId, lamports: body.lamports, reason: body.reason,
          ...(body.sourceAgentId === undefined ? {} : { sourceAgentId: body.sourceAgentId }), ...keyOf(body)
        }),
        (result): { readonly answer: AllocateResult; readonly created: boolean } => ({ created: result.created, answer: {
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
        } })
      )

    /** A rebalance, and whether it was made now (false: the key's earlier one, answered again). */
    const rebalance = (actor: TreasuryActor, body: RebalanceBody) =>
      Effect.map(
        moveBudget(actor, { kind: "rebalance", sourceAgentId: body.sourceAgentId, targetAgentId: body.targetAgentId, lamports: body.lamports, reason: body.reason, ...keyOf(body) }),
        (result): { readonly answer: RebalanceResult; readonly created: boolean } => ({ created: result.created, answer: {
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
        } })
      )

    return { allocate, rebalance, moveBudget }
  })
}) {}
