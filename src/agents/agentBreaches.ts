/**
 * Breaches the supervisor acts on: a budget refusal at execute, a delta guard failure of an agent's
 * transaction, or an agent's spend denied by the wallet's portfolio risk controls (drawdown, daily
 * loss), each written as an `agent_breaches` row (at most one per transaction and kind). The supervisor reads the unhandled ones, pauses
 * the agent (AgentService.pauseForBreach) and marks each handled, so a crash between the two is retried.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { decodeRows, Timestamp } from "../db/rowDecoding.js"

const BreachKind = Schema.Literal("budget", "delta_guard", "portfolio")
export type BreachKind = typeof BreachKind.Type

const BREACH_NAMES: Record<BreachKind, string> = { budget: "budget breach", delta_guard: "delta guard breach", portfolio: "portfolio breach" }

/** The reason an automatic pause records, e.g. "budget breach: remaining ... required ...". */
export const pauseReasonOf = (breach: Pick<AgentBreach, "kind" | "reason">) => `${BREACH_NAMES[breach.kind]}: ${breach.reason}`

export interface AgentBreach {
  readonly id: string
  readonly tenantId: string
  readonly agentId: string
  readonly kind: BreachKind
  readonly reason: string
  readonly txId: string | null
  readonly createdAt: string
}

const BreachRow = Schema.Struct({
  id: Schema.String,
  tenant_id: Schema.String,
  agent_id: Schema.String,
  kind: BreachKind,
  reason: Schema.String,
  tx_id: Schema.NullOr(Schema.String),
  created_at: Timestamp
})
type BreachRow = typeof BreachRow.Type

const BreachIdRow = Schema.Struct({ id: Schema.String })

const toBreach = (row: BreachRow): AgentBreach => ({
  id: row.id,
  tenantId: row.tenant_id,
  agentId: row.agent_id,
  kind: row.kind,
  reason: row.reason,
  txId: row.tx_id,
  createdAt: row.created_at.toISOString()
})

export class AgentBreaches extends Effect.Service<AgentBreaches>()("AgentBreaches", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const record = (input: { tenantId: string; agentId: string; kind: BreachKind; reason: string; txId?: string | null }) =>
      Effect.gen(function* () {
        const id = randomUUID()
        yield* sql`
          INSERT INTO agent_breaches (id, tenant_id, agent_id, kind, reason, tx_id)
          VALUES (${id}, ${input.tenantId}, ${input.agentId}, ${input.kind}, ${input.reason}, ${input.txId ?? null})
          ON CONFLICT DO NOTHING
        `
        return id
      }).pipe(Effect.orDie, Effect.withSpan("AgentBreaches.record"))

    /** Oldest first. */
    const listUnhandled = (limit = 100) =>
      sql`SELECT * FROM agent_breaches WHERE NOT handled ORDER BY created_at, id LIMIT ${limit}`.pipe(
        decodeRows("agent_breaches", BreachRow),
        Effect.map((rows) => rows.map(toBreach)),
        Effect.orDie
      )

    /** True for the one caller that marked it (concurrent supervisors act once). */
    const markHandled = (id: string) =>
      sql`UPDATE agent_breaches SET handled = true, handled_at = now() WHERE id = ${id} AND NOT handled RETURNING id`.pipe(
        decodeRows("agent_breaches", BreachIdRow),
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      )

    /**
     * Records a delta_guard breach for each failure whose agent exists and that has none yet (one per
     * transaction: a unique index); answers how many were new.
     */
    const recordDeltaGuardFailures = (failures: ReadonlyArray<{ txId: string; tenantId: string; agentId: string; reason: string }>) =>
      failures.length === 0
        ? Effect.succeed(0)
        : sql`
            INSERT INTO agent_breaches (id, tenant_id, agent_id, kind, reason, tx_id)
            SELECT gen_random_uuid(), v.tenant_id, v.agent_id, 'delta_guard', v.reason, v.tx_id
            FROM jsonb_to_recordset(${JSON.stringify(failures.map((f) => ({ tx_id: f.txId, tenant_id: f.tenantId, agent_id: f.agentId, reason: f.reason })))}::jsonb)
              AS v(tx_id uuid, tenant_id text, agent_id uuid, reason text)
            JOIN agents a ON a.id = v.agent_id
            WHERE NOT EXISTS (SELECT 1 FROM agent_breaches b WHERE b.tx_id = v.tx_id AND b.kind = 'delta_guard')
            ON CONFLICT DO NOTHING
            RETURNING id
          `.pipe(decodeRows("agent_breaches", BreachIdRow), Effect.map((rows) => rows.length), Effect.orDie, Effect.withSpan("AgentBreaches.recordDeltaGuardFailures"))

    return { record, listUnhandled, markHandled, recordDeltaGuardFailures }
  })
}) {}
