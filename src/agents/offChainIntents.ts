/**
 * Intents that move no value on chain: treasury_allocate and treasury_rebalance (budget bookkeeping
 * between agents) and paper_trade (recorded, never submitted). They confirm with a `result` and no
 * signature, like read-only intents, after the same validation and history as every transaction.
 */
import { Effect, Layer } from "effect"
import { OffChainIntents } from "../pipeline/agentPorts.js"
import { Terminal } from "../pipeline/stageFailure.js"
import type { TransactionRow } from "../pipeline/transactionRow.js"
import { AgentRepo } from "./agentRepo.js"
import type { PaperOrder } from "./strategy.js"
import { Strategy } from "./strategy.js"
import { Treasury } from "./treasury.js"

const refused = (message: string) => new Terminal({ failedAt: "build", errorCode: "PIPELINE_ERROR", message, stage: "build" })

const text = (value: unknown) => (typeof value === "string" ? value : undefined)

/** The pipeline's OffChainIntents, performed by the agents component that owns the bookkeeping. */
export const OffChainIntentsLive = Layer.effect(
  OffChainIntents,
  Effect.gen(function* () {
    const treasury = yield* Treasury
    const strategy = yield* Strategy
    const agents = yield* AgentRepo

    const treasuryMove = (row: TransactionRow) => {
      const intent = row.intent
      const target = text(intent.targetAgentId)
      const source = text(intent.sourceAgentId)
      if (target === undefined) return Effect.fail(refused("intent.targetAgentId is missing"))
      const lamports = BigInt(String(intent.lamports))
      const kind = row.type === "treasury_allocate" ? ("allocate" as const) : ("rebalance" as const)
      if (kind === "rebalance" && source === undefined) return Effect.fail(refused("intent.sourceAgentId is missing"))
      return treasury
        .moveBudget(
          { readTenant: row.tenant_id, traceId: row.id },
          {
            kind, targetAgentId: target, lamports, txId: row.id,
            reason: text(intent.reason) ?? (kind === "allocate" ? "treasury allocation" : "treasury rebalance"),
            ...(source === undefined ? {} : { sourceAgentId: source })
          }
        )
        .pipe(
          Effect.map((result) => ({
            operationId: result.id,
            targetBudgetBefore: result.targetBudgetBefore.toString(),
            targetBudgetAfter: result.targetBudgetAfter.toString(),
            ...(result.sourceBudgetBefore === undefined ? {} : { sourceBudgetBefore: result.sourceBudgetBefore.toString() }),
            ...(result.sourceBudgetAfter === undefined ? {} : { sourceBudgetAfter: result.sourceBudgetAfter.toString() })
          })),
          Effect.mapError((error) => refused(error.message))
        )
    }

    const paperTrade = (row: TransactionRow) =>
      Effect.gen(function* () {
        if (row.agent_id === null) return yield* Effect.fail(refused("paper_trade needs an agentId: paper trades belong to an agent"))
        const agent = yield* agents.findSystem(row.agent_id)
        if (agent === undefined || agent.tenantId !== row.tenant_id) return yield* Effect.fail(refused(`agent ${row.agent_id} not found`))
        const order = row.intent as unknown as PaperOrder
        const trade = yield* strategy.recordPaperTrade(agent, order, { traceId: row.id, onceKey: `tx:${row.id}` }).pipe(Effect.mapError((error) => refused(error.message)))
        return { paperTrade: trade }
      })

    /** Performs the intent; its result is stored on the transaction. */
    const perform = (row: TransactionRow): Effect.Effect<Record<string, unknown>, Terminal> =>
      row.type === "paper_trade" ? paperTrade(row) : treasuryMove(row)

    return { perform }
  })
)
