/**
 * Breaches the supervisor acts on: a budget refusal at execute, or a delta guard failure of an agent's
 * transaction, each written as an `agent_breaches` row. The supervisor reads the unhandled ones, pauses
 * the agent (AgentService.pauseForBreach) and marks each handled, so a crash between the two is retried.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"

export type BreachKind = "budget" | "delta_guard"

export interface AgentBreach {
  readonly id: string
  readonly tenantId: string
  readonly agentId: string
  readonly kind: BreachKind
  readonly reason: string
  readonly txId: string | null
  readonly createdAt: string
}

interface BreachRow {
  readonly id: string
  readonly tenant_id: string
  readonly agent_id: string
  readonly kind: BreachKind
  readonly reason: string
  readonly tx_id: string | null
  readonly created_at: Date | string
}

const toBreach = (row: BreachRow): AgentBreach => ({
  id: row.id,
  tenantId: row.tenant_id,
  agentId: row.agent_id,
  kind: row.kind,
  reason: row.reason,
  txId: row.tx_id,
  createdAt: new Date(row.created_at).toISOString()
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
        `
        return id
      }).pipe(Effect.orDie, Effect.withSpan("AgentBreaches.record"))

    /** Oldest first. */
    const listUnhandled = (limit = 100) =>
      sql<BreachRow>`SELECT * FROM agent_breaches WHERE NOT handled ORDER BY created_at, id LIMIT ${limit}`.pipe(
        Effect.map((rows) => rows.map(toBreach)),
        Effect.orDie
      )

    /** True for the one caller that marked it (concurrent supervisors act once). */
    const markHandled = (id: string) =>
      sql<{ id: string }>`UPDATE agent_breaches SET handled = true, handled_at = now() WHERE id = ${id} AND NOT handled RETURNING id`.pipe(
        Effect.map((rows) => rows.length === 1),
        Effect.orDie
      )

    return { record, listUnhandled, markHandled }
  })
}) {}
