/**
 * Durable run state of agent actors: the tick counter, run counts and last runs of steps and rules,
 * and the actions taken. `claimAction` is the one place that decides an action may run: in ONE SQL
 * transaction it checks the lease owner (row lock on the lease = fencing), the run count against
 * `maxRuns`, the cooldown and the hourly cap, then counts the run and records the action as `claimed`,
 * all BEFORE execute is called. So a restart never runs a step past its maxRuns, and a claimed run
 * whose process died is re-sent with the same idempotency key (recovery), never duplicated.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Option, Schema } from "effect"
import { newRowId } from "../../db/rowIds.js"
import { TransactionType } from "../../../schemas/intent.js"
import { ProtocolId } from "../../../schemas/protocol.js"
import { AppConfig } from "../../config.js"
import { makeStatementBatch } from "../../db/statementBatch.js"
import { hotSpan } from "../../observability/tracing.js"
import { ActionSource, actionIdempotencyKey, HOUR_MS, isEligible, type PlannedAction, type RunState } from "./planning.js"
import { decodeRows, Timestamp } from "../../db/rowDecoding.js"

const iso = (millis: number) => new Date(millis).toISOString()
const millisOf = (value: Date | null) => (value === null ? null : value.getTime())

const runFields = { id: Schema.String, runs: Schema.Number }
const RunRow = Schema.Struct({ ...runFields, last_run_at: Schema.NullOr(Timestamp) })
/** The run counts a load reads as JSON text, where timestamps are ISO strings. */
const RunsJson = Schema.parseJson(Schema.Array(Schema.Struct({ ...runFields, last_run_at: Schema.NullOr(Schema.Date) })))

const LoadRow = Schema.Struct({
  ord: Schema.Number,
  tick: Schema.NullOr(Schema.String),
  last_tick_at: Schema.NullOr(Timestamp),
  next_tick_at: Schema.NullOr(Timestamp),
  last_error: Schema.NullOr(Schema.String),
  steps: RunsJson,
  rules: RunsJson,
  recent: Schema.String
})

/** A counted tick, by its input's ordinal. */
const TickRow = Schema.Struct({ ord: Schema.Number, tick: Schema.String })

const NextTickRow = Schema.Struct({ agent_id: Schema.String, next_tick_at: Schema.NullOr(Timestamp) })

const RecentActionsRow = Schema.Struct({ count: Schema.String })

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

const ActionRow = Schema.Struct({
  id: Schema.String,
  agent_id: Schema.String,
  source: ActionSource,
  source_id: Schema.String,
  run: Schema.Number,
  kind: Schema.Literal("execute", "paper"),
  type: TransactionType,
  protocol: ProtocolId,
  intent_text: Schema.String,
  gasless: Schema.Boolean,
  idempotency_key: Schema.String
})
type ActionRow = typeof ActionRow.Type

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
    // per tick of every agent: a span only when traces are exported (tracing.ts)
    const exporting = Option.isSome((yield* AppConfig).observability.otlpEndpoint)
    const runsTableName = (source: ActionSource) => (source === "step" ? "agent_step_runs" : "agent_rule_runs")
    const runsTable = (source: ActionSource) => sql.literal(runsTableName(source))
    const idColumn = (source: ActionSource) => sql.literal(source === "step" ? "step_id" : "rule_id")

    const runMap = (rows: ReadonlyArray<typeof RunRow.Type>) =>
      new Map(rows.map((row) => [row.id, { runs: Number(row.runs), lastRunAt: millisOf(row.last_run_at) }] as const))

    // Many agents tick at once (10,000 per process at a 5 s cadence is 2,000 ticks a second): their reads
    // and tick counts share statements (statementBatch.ts), each answering every agent of the batch.
    const records = (inputs: ReadonlyArray<object>) => JSON.stringify(inputs.map((input, ord) => ({ ...input, ord })))

    const beginTicks = makeStatementBatch(
      (inputs: ReadonlyArray<{ readonly agentId: string; readonly ownerId: string; readonly nowMs: number; readonly nextTickAtMs: number }>) =>
        sql`
          WITH q AS (
            SELECT * FROM jsonb_to_recordset(${records(inputs.map((i) => ({ agent_id: i.agentId, owner_id: i.ownerId, at: iso(i.nowMs), next_at: iso(i.nextTickAtMs) })))}::jsonb)
              AS q(ord int, agent_id uuid, owner_id text, at timestamptz, next_at timestamptz)
          ), counted AS (
            INSERT INTO agent_runtime_state (agent_id, tick, last_tick_at, next_tick_at)
            SELECT q.agent_id, 1, q.at, q.next_at FROM q
            WHERE EXISTS (SELECT 1 FROM agent_leases l WHERE l.agent_id = q.agent_id AND l.owner_id = q.owner_id)
            ON CONFLICT (agent_id) DO UPDATE SET tick = agent_runtime_state.tick + 1,
              last_tick_at = EXCLUDED.last_tick_at, next_tick_at = EXCLUDED.next_tick_at, updated_at = now()
            RETURNING agent_id, tick
          )
          SELECT q.ord, c.tick::text AS tick FROM q JOIN counted c ON c.agent_id = q.agent_id
        `.pipe(decodeRows("agent_runtime_state", TickRow), Effect.map((rows) => inputs.map((_, ord) => rows.find((row) => row.ord === ord)?.tick)), Effect.orDie),
      { maxBatch: 256, repeatable: false }
    )

    /** Counts the next tick, fenced by the lease; undefined when `ownerId` no longer holds the lease. */
    const beginTick = (agentId: string, ownerId: string, nowMs: number, nextTickAtMs: number) =>
      beginTicks.submit({ agentId, ownerId, nowMs, nextTickAtMs }).pipe(
        Effect.map((tick) => (tick === undefined ? undefined : Number(tick))),
        hotSpan(exporting, "AgentRunStore.beginTick")
      )

    const nextTicks = makeStatementBatch(
      (agentIds: ReadonlyArray<string>) =>
        sql`
          SELECT agent_id::text AS agent_id, next_tick_at FROM agent_runtime_state
          WHERE agent_id IN (SELECT q.element::uuid FROM jsonb_array_elements_text(${JSON.stringify(agentIds)}::jsonb) AS q(element))
        `.pipe(
          decodeRows("agent_runtime_state", NextTickRow),
          Effect.map((rows) => {
            const byAgent = new Map(rows.map((row) => [row.agent_id, millisOf(row.next_tick_at)] as const))
            return agentIds.map((id) => byAgent.get(id) ?? null)
          }),
          Effect.orDie
        ),
      { maxBatch: 256, repeatable: true }
    )

    /** When the agent's next tick is due (null: never ticked), so a restarted actor keeps the cadence. */
    const nextTickAt = (agentId: string) => nextTicks.submit(agentId)

    const loads = makeStatementBatch(
      (inputs: ReadonlyArray<{ readonly agentId: string; readonly nowMs: number }>) =>
        sql`
          SELECT q.ord, s.tick::text AS tick, s.last_tick_at, s.next_tick_at, s.last_error,
            (SELECT COALESCE(jsonb_agg(jsonb_build_object('id', r.step_id, 'runs', r.runs, 'last_run_at', r.last_run_at)), '[]'::jsonb)
               FROM agent_step_runs r WHERE r.agent_id = q.agent_id)::text AS steps,
            (SELECT COALESCE(jsonb_agg(jsonb_build_object('id', r.rule_id, 'runs', r.runs, 'last_run_at', r.last_run_at)), '[]'::jsonb)
               FROM agent_rule_runs r WHERE r.agent_id = q.agent_id)::text AS rules,
            (SELECT count(*) FROM agent_actions a WHERE a.agent_id = q.agent_id AND a.at > q.since)::text AS recent
          FROM jsonb_to_recordset(${records(inputs.map((i) => ({ agent_id: i.agentId, since: iso(i.nowMs - HOUR_MS) })))}::jsonb)
            AS q(ord int, agent_id uuid, since timestamptz)
          LEFT JOIN agent_runtime_state s ON s.agent_id = q.agent_id
          ORDER BY q.ord
        `.pipe(
          decodeRows("agent_runtime_state", LoadRow),
          Effect.map((rows) =>
            rows.map((row): RunStates => ({
              tick: row.tick === null ? 0 : Number(row.tick),
              lastTickAt: millisOf(row.last_tick_at),
              nextTickAt: millisOf(row.next_tick_at),
              lastError: row.last_error ?? null,
              steps: runMap(row.steps),
              rules: runMap(row.rules),
              actionsLastHour: Number(row.recent)
            }))
          ),
          Effect.orDie
        ),
      { maxBatch: 256, repeatable: true }
    )

    const load = (agentId: string, nowMs: number) => loads.submit({ agentId, nowMs }).pipe(hotSpan(exporting, "AgentRunStore.load"))

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
            const leased = yield* sql`
              UPDATE agent_leases SET owner_id = owner_id WHERE agent_id = ${agentId} AND owner_id = ${input.ownerId} RETURNING agent_id
            `.pipe(Effect.map((rows) => rows.length > 0))
            if (!leased) return "lease_lost" as const
            const current = yield* sql`
              SELECT ${idColumn(action.source)} AS id, runs, last_run_at FROM ${runsTable(action.source)}
              WHERE agent_id = ${agentId} AND ${idColumn(action.source)} = ${action.sourceId}
            `.pipe(decodeRows(runsTableName(action.source), RunRow))
            const state = runMap(current).get(action.sourceId) ?? { runs: 0, lastRunAt: null }
            if (!isEligible(action.limits, state, nowMs)) return "not_eligible" as const
            const recent = yield* sql`
              SELECT count(*)::text AS count FROM agent_actions WHERE agent_id = ${agentId} AND at > ${iso(nowMs - HOUR_MS)}::timestamptz
            `.pipe(decodeRows("agent_actions", RecentActionsRow))
            if (Number(recent[0]?.count ?? 0) >= input.maxActionsPerHour) return "hourly_cap" as const
            const run = state.runs + 1
            yield* sql`
              INSERT INTO ${runsTable(action.source)} (agent_id, ${idColumn(action.source)}, runs, last_run_at)
              VALUES (${agentId}, ${action.sourceId}, ${run}, ${iso(nowMs)}::timestamptz)
              ON CONFLICT (agent_id, ${idColumn(action.source)}) DO UPDATE SET runs = EXCLUDED.runs, last_run_at = EXCLUDED.last_run_at
            `
            const rows = yield* sql`
              INSERT INTO agent_actions (id, agent_id, source, source_id, run, kind, status, type, protocol, intent, gasless, idempotency_key, at)
              VALUES (${newRowId()}, ${agentId}, ${action.source}, ${action.sourceId}, ${run}, ${action.paper ? "paper" : "execute"}, 'claimed',
                ${action.type}, ${action.protocol}, ${JSON.stringify(input.filledIntent)}::jsonb, ${action.gasless},
                ${actionIdempotencyKey(agentId, action.source, action.sourceId, run)}, ${iso(nowMs)}::timestamptz)
              RETURNING ${sql.literal(ACTION_COLUMNS)}
            `.pipe(decodeRows("agent_actions", ActionRow))
            return toClaimed(rows[0])
          })
        )
        .pipe(Effect.orDie, hotSpan(exporting, "AgentRunStore.claimAction"))

    const claimedOfAgents = makeStatementBatch(
      (agentIds: ReadonlyArray<string>) =>
        sql`
          SELECT ${sql.literal(ACTION_COLUMNS)} FROM agent_actions
          WHERE agent_id IN (SELECT q.element::uuid FROM jsonb_array_elements_text(${JSON.stringify(agentIds)}::jsonb) AS q(element)) AND status = 'claimed'
          ORDER BY at, run
        `.pipe(
          decodeRows("agent_actions", ActionRow),
          Effect.map((rows) => agentIds.map((id) => rows.filter((row) => row.agent_id === id).map(toClaimed))),
          Effect.orDie
        ),
      { maxBatch: 256, repeatable: true }
    )

    /** Runs claimed but not answered (the process died in between): re-sent with their own key. */
    const claimedActions = (agentId: string) => claimedOfAgents.submit(agentId)

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
