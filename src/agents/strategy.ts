/**
 * Strategy: backtests by the spec's rule (a step passes when its simulated PnL is 0 or more; passed
 * when passRate >= minimumPassRate) kept in SQL, and paper trades: the intent decoded and costed as
 * execute would, never submitted, at most 500 per agent (the oldest dropped), kept in SQL.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { TransactionType } from "../../schemas/intent.js"
import { ProtocolId } from "../../schemas/protocol.js"
import { MAX_PAPER_TRADES_PER_AGENT, type BacktestBody, type BacktestRun, type PaperExecuteBody, type PaperTrade } from "../../schemas/strategy.js"
import { NotFound, ValidationError } from "../../schemas/errors.js"
import { AuditLog } from "../audit/auditLog.js"
import type { CallerInfo } from "../gateway/caller.js"
import { decodeIntent } from "../pipeline/acceptIntent.js"
import { WalletService } from "../wallet/walletService.js"
import { AgentRepo, utcToday } from "./agentRepo.js"
import { spentToday, type StoredAgent } from "./agentRow.js"
import { intentSpendLamports } from "../pipeline/intentSpend.js"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

/** The spec's backtest rule, pure. */
export const scoreBacktest = (steps: ReadonlyArray<{ readonly simulatedPnlLamports: bigint }>, minimumPassRate: number) => {
  const passedSteps = steps.filter((step) => step.simulatedPnlLamports >= 0n).length
  const passRate = steps.length === 0 ? 0 : passedSteps / steps.length
  return {
    totalSteps: steps.length,
    passedSteps,
    failedSteps: steps.length - passedSteps,
    passRate,
    totalPnlLamports: steps.reduce((sum, step) => sum + step.simulatedPnlLamports, 0n),
    passed: steps.length > 0 && passRate >= minimumPassRate
  }
}

const PaperRow = Schema.Struct({
  id: Schema.String,
  agent_id: Schema.String,
  wallet_id: Schema.String,
  type: TransactionType,
  protocol: ProtocolId,
  intent_text: Schema.String,
  outcome_text: Schema.NullOr(Schema.String),
  created_at: Timestamp
})
type PaperRow = typeof PaperRow.Type

const BacktestCreatedRow = Schema.Struct({ created_at: Timestamp })

const FoundRow = Schema.Struct({ found: Schema.Boolean })

const toPaperTrade = (row: PaperRow): PaperTrade => ({
  id: row.id,
  agentId: row.agent_id,
  walletId: row.wallet_id,
  type: row.type,
  protocol: row.protocol,
  intent: JSON.parse(row.intent_text) as Record<string, unknown>,
  ...(row.outcome_text === null ? {} : { outcome: JSON.parse(row.outcome_text) as Record<string, unknown> }),
  createdAt: row.created_at.toISOString()
})

export interface PaperOrder {
  readonly type: TransactionType
  readonly protocol: ProtocolId
  readonly intent: Record<string, unknown>
}

export class Strategy extends Effect.Service<Strategy>()("Strategy", {
  dependencies: [AgentRepo.Default, WalletService.Default],
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const agents = yield* AgentRepo
    const wallets = yield* WalletService
    const audit = yield* AuditLog

    const backtest = (caller: CallerInfo, body: BacktestBody) =>
      Effect.gen(function* () {
        const wallet = yield* wallets.get(caller, body.walletId)
        const score = scoreBacktest(body.steps, body.minimumPassRate)
        const runId = randomUUID()
        const [row] = yield* sql`
          INSERT INTO backtest_runs (id, tenant_id, wallet_id, name, total_steps, passed_steps, failed_steps, pass_rate,
            minimum_pass_rate, total_pnl_lamports, passed)
          VALUES (${runId}, ${wallet.tenantId}, ${body.walletId}, ${body.name}, ${score.totalSteps}, ${score.passedSteps},
            ${score.failedSteps}, ${score.passRate}, ${body.minimumPassRate}, ${score.totalPnlLamports.toString()}::numeric, ${score.passed})
          RETURNING created_at
        `.pipe(decodeRows("backtest_runs", BacktestCreatedRow), Effect.orDie)
        const run: BacktestRun = { runId, walletId: body.walletId, name: body.name, ...score, minimumPassRate: body.minimumPassRate, createdAt: row.created_at.toISOString() }
        yield* audit.record({
          tenantId: wallet.tenantId, eventType: "strategy.backtest", message: `backtest ${runId} ${score.passed ? "passed" : "failed"}`,
          metadata: { runId, name: body.name, passRate: score.passRate, minimumPassRate: body.minimumPassRate, passed: score.passed },
          walletId: body.walletId, entityType: "backtest", category: "strategy", traceId: caller.traceId
        })
        return run
      }).pipe(Effect.withSpan("Strategy.backtest"))

    /** AGENT_REQUIRE_BACKTEST_PASS: whether the wallet has a passing backtest in the tenant. */
    const hasPassingBacktest = (tenantId: string, walletId: string) =>
      sql`
        SELECT EXISTS (SELECT 1 FROM backtest_runs WHERE tenant_id = ${tenantId} AND wallet_id = ${walletId} AND passed) AS found
      `.pipe(decodeRows("backtest_runs", FoundRow), Effect.map((rows) => rows[0]?.found === true), Effect.orDie)

    /**
     * Records a paper trade of `agent` (also the runtime's entry for autonomy mode `paper` and paperOnly
     * steps): the intent decoded by its type (400 naming `intent.<field>`), and what execute would say.
     * One given a `onceKey` (a paper_trade transaction's `tx:<id>`, a runtime action's `run:<key>`) is made
     * once: asked again (the transaction run again, the action re-sent after a crash), it answers the first.
     */
    const recordPaperTrade = (stored: StoredAgent, order: PaperOrder, context: { readonly traceId?: string | undefined; readonly onceKey?: string } = {}) =>
      Effect.gen(function* () {
        const intent = (yield* decodeIntent(order.type, order.intent)) as Record<string, unknown>
        const today = yield* utcToday
        const spend = intentSpendLamports(order.type, intent)
        const budget = stored.agent.budgetLamports
        const outcome = {
          simulated: true,
          // A JSON integer while safe, else a decimal string (the API's rule for amounts).
          spendLamports: spend <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(spend) : spend.toString(),
          intentAllowed: stored.agent.allowedIntents.includes(order.type),
          protocolAllowed: stored.agent.allowedProtocols === undefined || stored.agent.allowedProtocols.includes(order.protocol),
          withinBudget: budget === undefined || spentToday(stored, today) + spend <= budget
        }
        const id = randomUUID()
        const rows = yield* sql.withTransaction(
          Effect.gen(function* () {
            // The agent's row lock serialises its paper trades, so the cap of 500 holds exactly.
            yield* sql`SELECT id FROM agents WHERE id = ${stored.agent.id} FOR UPDATE`
            if (context.onceKey !== undefined) {
              const earlier = yield* sql`
                SELECT id, agent_id, wallet_id, type, protocol, intent::text AS intent_text, outcome::text AS outcome_text, created_at
                FROM paper_trades WHERE agent_id = ${stored.agent.id} AND once_key = ${context.onceKey}
              `.pipe(decodeRows("paper_trades", PaperRow))
              if (earlier.length > 0) return earlier
            }
            const inserted = yield* sql`
              INSERT INTO paper_trades (id, tenant_id, agent_id, wallet_id, type, protocol, intent, outcome, once_key)
              VALUES (${id}, ${stored.tenantId}, ${stored.agent.id}, ${stored.agent.walletId}, ${order.type}, ${order.protocol},
                ${JSON.stringify(intent)}::jsonb, ${JSON.stringify(outcome)}::jsonb, ${context.onceKey ?? null})
              RETURNING id, agent_id, wallet_id, type, protocol, intent::text AS intent_text, outcome::text AS outcome_text, created_at
            `.pipe(decodeRows("paper_trades", PaperRow))
            yield* sql`
              DELETE FROM paper_trades WHERE agent_id = ${stored.agent.id} AND seq NOT IN (
                SELECT seq FROM paper_trades WHERE agent_id = ${stored.agent.id} ORDER BY seq DESC LIMIT ${MAX_PAPER_TRADES_PER_AGENT})
            `
            // Its event is written with it.
            yield* audit.record({
              tenantId: stored.tenantId, eventType: "strategy.paper_trade", message: `paper trade ${id} of agent ${stored.agent.id}`,
              metadata: { type: order.type, protocol: order.protocol, outcome }, agentId: stored.agent.id, walletId: stored.agent.walletId,
              protocol: order.protocol, entityType: "paper_trade", category: "strategy", traceId: context.traceId ?? null
            })
            return inserted
          })
        ).pipe(Effect.orDie)
        return toPaperTrade(rows[0])
      }).pipe(Effect.withSpan("Strategy.recordPaperTrade"))

    const findAgent = (caller: CallerInfo, agentId: string) =>
      Effect.flatMap(agents.find(agentId, caller.readTenant), (stored) =>
        stored === undefined ? Effect.fail(new NotFound({ resource: "agent", id: agentId })) : Effect.succeed(stored)
      )

    const paperExecute = (caller: CallerInfo, body: PaperExecuteBody) =>
      Effect.gen(function* () {
        const stored = yield* findAgent(caller, body.agentId)
        if (stored.agent.walletId !== body.walletId) {
          return yield* Effect.fail(new ValidationError({ message: `walletId: is not the wallet of agent ${body.agentId}`, field: "walletId" }))
        }
        return yield* recordPaperTrade(stored, body, { traceId: caller.traceId })
      })

    /** Oldest first (at most 500). */
    const listPaperTrades = (caller: CallerInfo, agentId: string) =>
      Effect.gen(function* () {
        const stored = yield* findAgent(caller, agentId)
        const rows = yield* sql`
          SELECT id, agent_id, wallet_id, type, protocol, intent::text AS intent_text, outcome::text AS outcome_text, created_at
          FROM paper_trades WHERE agent_id = ${stored.agent.id} AND tenant_id = ${stored.tenantId} ORDER BY seq
        `.pipe(decodeRows("paper_trades", PaperRow), Effect.orDie)
        return rows.map(toPaperTrade)
      })

    return { backtest, hasPassingBacktest, recordPaperTrade, paperExecute, listPaperTrades }
  })
}) {}
