/**
 * Durable run state of agent actors: the tick counter, run counts and last runs of steps and rules,
 * and the actions taken. `claimAction` is the one place that decides an action may run: in ONE SQL
 * transaction it checks the lease owner (row lock on the lease = fencing), the run count against
 * `maxRuns`, the cooldown and the hourly cap, then counts the run and records the action as `claimed`,
 * all BEFORE execute is called. So a restart never runs a step past its maxRuns, and a claimed run
 * whose process died is re-sent with the same idempotency key (recovery), never duplicated.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import type { TransactionType } from "../../../schemas/intent.js"
import type { ProtocolId } from "../../../schemas/protocol.js"
import { type ActionSource, actionIdempotencyKey, HOUR_MS, isEligible, type PlannedAction, type RunState } from "./planning.js"

const iso = (millis: number) => new Date(millis).toISOString()
const millisOf = (value: Date | string | null) => (value === null ? null : new Date(value).getTime())

interface RunRow {
  readonly id: string
  readonly runs: number
  readonly last_run_at: Date | string | null
}

export interface ClaimedAction {
  readonly id: string
  readonly agentId: string
  readonly source: ActionSource
  readonly sourceId: string
  readonly run: number
  readonly kind: "execute" | "paper"
  readonly type: TransactionType
  readonly protocol: ProtocolId
  readonly intent: Record<string, unknown>
  readonly gasless: boolean
  readonly idempotencyKey: string
}

interface ActionRow {
  readonly id: string
  readonly agent_id: string
  readonly source: ActionSource
  readonly source_id: string
  readonly run: number
  readonly kind: "execute" | "paper"
  readonly type: TransactionType
  readonly protocol: ProtocolId
  readonly intent_text: string
  readonly gasless: boolean
  readonly idempotency_key: string
}

const toClaimed = (row: ActionRow): ClaimedAction => ({
  id: row.id,
  agentId: row.agent_id,
  source: row.source,
  sourceId: row.source_id,
  run: Number(row.run),
  kind: row.kind,
  type: row.type,
  protocol: row.protocol,
  intent: JSON.parse(row.intent_text) as Record<string, unknown>,
  gasless: row.gasless,
  idempotencyKey: row.idempotency_key
})

/** Why a planned action did not get claimed. */
export type ClaimRefusal = "lease_lost" | "not_eligible" | "hourly_cap"

export type ActionOutcome =
  | { readonly status: "submitted"; readonly txId: string }
  | { readonly status: "paper"; readonly paperTradeId: string }
  | { readonly status: "failed"; readonly error: string; readonly txId?: string }

export interface RunStates {
  readonly tick: number
  readonly lastTickAt: number | null
  readonly nextTickAt: number | null
  readonly lastError: string | null
  readonly steps: ReadonlyMap<string, RunState>
  readonly rules: ReadonlyMap<string, RunState>
  readonly actionsLastHour: number
}

export class AgentRunStore extends Effect.Service<AgentRunStore>()("AgentRunStore", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const runsTable = (source: ActionSource) => sql.literal(source === "step" ? "agent_step_runs" : "agent_rule_runs")
    const idColumn = (source: ActionSource) => sql.literal(source === "step" ? "step_id" : "rule_id")

    const runMap = (rows: ReadonlyArray<RunRow>) =>
      new Map(rows.map((row) => [row.id, { runs: Number(row.runs), lastRunAt: millisOf(row.last_run_at) }] as const))

    /** Counts the next tick, fenced by the lease; undefined when `ownerId` no longer holds the lease. */
    const beginTick = (agentId: string, ownerId: string, nowMs: number, nextTickAtMs: number) =>
      sql<{ tick: string }>`
        INSERT INTO agent_runtime_state (agent_id, tick, last_tick_at, next_tick_at)
        SELECT ${agentId}, 1, ${iso(nowMs)}::timestamptz, ${iso(nextTickAtMs)}::timestamptz
        WHERE EXISTS (SELECT 1 FROM agent_leases WHERE agent_id = ${agentId} AND owner_id = ${ownerId})
        ON CONFLICT (agent_id) DO UPDATE SET tick = agent_runtime_state.tick + 1,
          last_tick_at = EXCLUDED.last_tick_at, next_tick_at = EXCLUDED.next_tick_at, updated_at = now()
        RETURNING tick::text AS tick
      `.pipe(
        Effect.map((rows) => (rows.length === 0 ? undefined : Number(rows[0].tick))),
        Effect.orDie,
        Effect.withSpan("AgentRunStore.beginTick")
      )

    /** When the agent's next tick is due (null: never ticked), so a restarted actor keeps the cadence. */
    const nextTickAt = (agentId: string) =>
      sql<{ next_tick_at: Date | string | null }>`SELECT next_tick_at FROM agent_runtime_state WHERE agent_id = ${agentId}`.pipe(
        Effect.map((rows) => (rows.length === 0 ? null : millisOf(rows[0].next_tick_at))),
        Effect.orDie
      )

    const load = (agentId: string, nowMs: number) =>
      Effect.gen(function* () {
        const state = yield* sql<{ tick: string; last_tick_at: Date | string | null; next_tick_at: Date | string | null; last_error: string | null }>`
          SELECT tick::text AS tick, last_tick_at, next_tick_at, last_error FROM agent_runtime_state WHERE agent_id = ${agentId}
        `
        const steps = yield* sql<RunRow>`SELECT step_id AS id, runs, last_run_at FROM agent_step_runs WHERE agent_id = ${agentId}`
        const rules = yield* sql<RunRow>`SELECT rule_id AS id, runs, last_run_at FROM agent_rule_runs WHERE agent_id = ${agentId}`
        const recent = yield* sql<{ count: string }>`
          SELECT count(*)::text AS count FROM agent_actions WHERE agent_id = ${agentId} AND at > ${iso(nowMs - HOUR_MS)}::timestamptz
        `
        const row = state[0]
        return {
          tick: row === undefined ? 0 : Number(row.tick),
          lastTickAt: row === undefined ? null : millisOf(row.last_tick_at),
          nextTickAt: row === undefined ? null : millisOf(row.next_tick_at),
          lastError: row?.last_error ?? null,
          steps: runMap(steps),
          rules: runMap(rules),
          actionsLastHour: Number(recent[0]?.count ?? 0)
        } satisfies RunStates
      }).pipe(Effect.orDie, Effect.withSpan("AgentRunStore.load"))

    /** The atomic decide-and-count of one run (see the file comment); the claimed action or why not. */
    const claimAction = (input: {
      readonly agentId: string
      readonly ownerId: string
      readonly action: PlannedAction
      readonly filledIntent: Record<string, unknown>
      readonly maxActionsPerHour: number
      readonly nowMs: number
    }) =>
      sql
        .withTransaction(
          Effect.gen(function* () {
            const { action, agentId, nowMs } = input
            // Locks the lease row: claims of one agent serialize across processes, and a lost lease refuses.
            const lease = yield* sql`
              UPDATE agent_leases SET owner_id = owner_id WHERE agent_id = ${agentId} AND owner_id = ${input.ownerId} RETURNING agent_id
            `
            if (lease.length === 0) return "lease_lost" as const
            const current = yield* sql<RunRow>`
              SELECT ${idColumn(action.source)} AS id, runs, last_run_at FROM ${runsTable(action.source)}
              WHERE agent_id = ${agentId} AND ${idColumn(action.source)} = ${action.sourceId}
            `
            const state = runMap(current).get(action.sourceId) ?? { runs: 0, lastRunAt: null }
            if (!isEligible(action.limits, state, nowMs)) return "not_eligible" as const
            const recent = yield* sql<{ count: string }>`
              SELECT count(*)::text AS count FROM agent_actions WHERE agent_id = ${agentId} AND at > ${iso(nowMs - HOUR_MS)}::timestamptz
            `
            if (Number(recent[0]?.count ?? 0) >= input.maxActionsPerHour) return "hourly_cap" as const
            const run = state.runs + 1
            yield* sql`
              INSERT INTO ${runsTable(action.source)} (agent_id, ${idColumn(action.source)}, runs, last_run_at)
              VALUES (${agentId}, ${action.sourceId}, ${run}, ${iso(nowMs)}::timestamptz)
              ON CONFLICT (agent_id, ${idColumn(action.source)}) DO UPDATE SET runs = EXCLUDED.runs, last_run_at = EXCLUDED.last_run_at
            `
            const rows = yield* sql<ActionRow>`
              INSERT INTO agent_actions (id, agent_id, source, source_id, run, kind, status, type, protocol, intent, gasless, idempotency_key, at)
              VALUES (${randomUUID()}, ${agentId}, ${action.source}, ${action.sourceId}, ${run}, ${action.paper ? "paper" : "execute"}, 'claimed',
                ${action.type}, ${action.protocol}, ${JSON.stringify(input.filledIntent)}::jsonb, ${action.gasless},
                ${actionIdempotencyKey(agentId, action.source, action.sourceId, run)}, ${iso(nowMs)}::timestamptz)
              RETURNING ${sql.literal(ACTION_COLUMNS)}
            `
            return toClaimed(rows[0])
          })
        )
        .pipe(Effect.orDie, Effect.withSpan("AgentRunStore.claimAction"))

    /** Runs claimed but not answered (the process died in between): re-sent with their own key. */
    const claimedActions = (agentId: string) =>
      sql<ActionRow>`
        SELECT ${sql.literal(ACTION_COLUMNS)} FROM agent_actions WHERE agent_id = ${agentId} AND status = 'claimed' ORDER BY at, run
      `.pipe(Effect.map((rows) => rows.map(toClaimed)), Effect.orDie)

    const finishAction = (actionId: string, outcome: ActionOutcome) =>
      sql`
        UPDATE agent_actions SET status = ${outcome.status},
          tx_id = ${outcome.status === "paper" ? null : outcome.txId ?? null},
          paper_trade_id = ${outcome.status === "paper" ? outcome.paperTradeId : null},
          error = ${outcome.status === "failed" ? outcome.error : null}
        WHERE id = ${actionId} AND status = 'claimed'
      `.pipe(Effect.asVoid, Effect.orDie)

    /** The agent's last error as the state endpoint shows it (null clears it). */
    const recordError = (agentId: string, error: string | null) =>
      sql`
        INSERT INTO agent_runtime_state (agent_id, last_error, last_error_at) VALUES (${agentId}, ${error}, now())
        ON CONFLICT (agent_id) DO UPDATE SET last_error = EXCLUDED.last_error,
          last_error_at = CASE WHEN EXCLUDED.last_error IS NULL THEN agent_runtime_state.last_error_at ELSE now() END, updated_at = now()
      `.pipe(Effect.asVoid, Effect.orDie)

    return { beginTick, nextTickAt, load, claimAction, claimedActions, finishAction, recordError }
  })
}) {}

const ACTION_COLUMNS = `id, agent_id, source, source_id, run, kind, type, protocol, intent::text AS intent_text, gasless, idempotency_key`
