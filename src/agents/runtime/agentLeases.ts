/**
 * One SQL lease per running agent: only the process holding it runs the agent's actor, so two
 * processes on one PostgreSQL never both run an agent. A lease is claimed by an atomic
 * upsert-if-expired (or renewed by its owner), and released when the owner stops. Expiry uses the
 * database's clock, the one clock every process shares.
 */
import { SqlClient } from "@effect/sql"
import { Effect, Schema } from "effect"
import { decodeRows } from "../../db/rowDecoding.js"

const CLAIM_CHUNK = 2_000

const LeasedRow = Schema.Struct({ agent_id: Schema.String })

const HeldRow = Schema.Struct({ held: Schema.Boolean })

const chunksOf = <A>(items: ReadonlyArray<A>, size: number): Array<ReadonlyArray<A>> =>
  Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

export class AgentLeases extends Effect.Service<AgentLeases>()("AgentLeases", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Claims or renews the lease of each agent; returns the agents whose lease `ownerId` now holds. One
     * statement per CLAIM_CHUNK agents (10,000 running agents are five statements a loop, not 10,000), in
     * id order, so two processes claiming overlapping sets lock rows in the same order.
     */
    const claim = (agentIds: ReadonlyArray<string>, ownerId: string, ttlMs: number) =>
      Effect.forEach(
        chunksOf([...agentIds].sort(), CLAIM_CHUNK),
        (chunk) =>
          sql`
            INSERT INTO agent_leases (agent_id, owner_id, expires_at)
            SELECT q.element::uuid, ${ownerId}, now() + ${ttlMs} * interval '1 millisecond'
            FROM jsonb_array_elements_text(${JSON.stringify(chunk)}::jsonb) AS q(element)
            ON CONFLICT (agent_id) DO UPDATE
              SET owner_id = EXCLUDED.owner_id, expires_at = EXCLUDED.expires_at,
                  acquired_at = CASE WHEN agent_leases.owner_id = EXCLUDED.owner_id THEN agent_leases.acquired_at ELSE now() END
              WHERE agent_leases.owner_id = EXCLUDED.owner_id OR agent_leases.expires_at < now()
            RETURNING agent_id::text AS agent_id
          `.pipe(decodeRows("agent_leases", LeasedRow)),
        { concurrency: 1 }
      ).pipe(
        Effect.map((results) => new Set(results.flat().map((row) => row.agent_id))),
        Effect.orDie,
        Effect.withSpan("AgentLeases.claim")
      )

    /** Gives up leases (all of the owner's, or one agent's) so another process may take them at once. */
    const release = (ownerId: string, agentId?: string) =>
      sql`DELETE FROM agent_leases WHERE owner_id = ${ownerId} ${agentId === undefined ? sql`` : sql`AND agent_id = ${agentId}`}`.pipe(
        Effect.asVoid,
        Effect.orDie
      )

    /** Gives up the owner's leases on agents not in `keep` (they stopped running). */
    const releaseExcept = (ownerId: string, keep: ReadonlyArray<string>) =>
      sql`
        DELETE FROM agent_leases WHERE owner_id = ${ownerId}
          AND agent_id NOT IN (SELECT q.element::uuid FROM jsonb_array_elements_text(${JSON.stringify(keep)}::jsonb) AS q(element))
      `.pipe(Effect.asVoid, Effect.orDie)

    /** Whether some process holds a live lease on the agent (its actor runs somewhere). */
    const isHeld = (agentId: string) =>
      sql`SELECT expires_at > now() AS held FROM agent_leases WHERE agent_id = ${agentId}`.pipe(
        decodeRows("agent_leases", HeldRow),
        Effect.map((rows) => rows.length > 0 && rows[0].held),
        Effect.orDie
      )

    return { claim, release, releaseExcept, isHeld }
  })
}) {}
