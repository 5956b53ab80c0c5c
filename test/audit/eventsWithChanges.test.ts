/**
 * A change and its audit event commit together: when the event cannot be written, the change is not made
 * either, so a crash or a failed insert never leaves an agent started or paused, a budget reserved, or a wallet
 * or manifest made without its event in the log. Before, each was written first and its event after, in its
 * own statement.
 *
 * A test-only trigger refuses the audit events named in a table, as a failing insert (or a process that
 * died between the two statements) would leave them unwritten.
 */
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"

let service: RunningService
let admin: pg.Client

beforeAll(async () => {
  service = await startService({ rpcUrl: "http://127.0.0.1:9", env: { AGENT_MANIFEST_SIGNING_SECRET: "test-manifest-secret" } })
  admin = new pg.Client({ connectionString: service.database.url })
  await admin.connect()
  await admin.query("CREATE TABLE test_refused_events (event_type text PRIMARY KEY)")
  await admin.query(`
    CREATE FUNCTION test_refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF EXISTS (SELECT 1 FROM test_refused_events WHERE event_type = NEW.event_type) THEN
        RAISE EXCEPTION 'test: audit event % refused', NEW.event_type;
      END IF;
      RETURN NEW;
    END $$`)
  await admin.query("CREATE TRIGGER test_refuse_event BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION test_refuse_event()")
})

afterAll(async () => {
  await admin?.end()
  await service?.stop()
})

const client = () => makeClient(service.baseUrl)

/** Runs `act` while audit events of `eventType` cannot be written, then lets them be written again. */
const withEventRefused = async <A>(eventType: string, act: () => Promise<A>): Promise<A> => {
  await admin.query("INSERT INTO test_refused_events (event_type) VALUES ($1)", [eventType])
  try {
    return await act()
  } finally {
    await admin.query("DELETE FROM test_refused_events WHERE event_type = $1", [eventType])
  }
}

const eventsOf = async (eventType: string, column: "agent_id" | "wallet_id", id: string) =>
  Number((await admin.query(`SELECT count(*) AS n FROM audit_events WHERE event_type = $1 AND ${column} = $2`, [eventType, id])).rows[0].n)

const newAgent = async () => {
  const created = await client().agents.create({ body: { name: "audited" } })
  expect(created.status).toBe(201)
  return created.body.data as { id: string; walletId: string; status: string }
}

describe("a change whose audit event cannot be written", () => {
  it("an agent's start and pause: not made, and made with their event once the event can be written", async () => {
    const agent = await newAgent()
    const refusedStart = await withEventRefused("agent.started", () => client().agents.start({ params: { agentId: agent.id }, body: {} }))
    expect(refusedStart.status).toBe(500)
    expect((await client().agents.get({ params: { agentId: agent.id } })).body.data?.status).toBe("stopped")
    expect(await eventsOf("agent.started", "agent_id", agent.id)).toBe(0)

    expect((await client().agents.start({ params: { agentId: agent.id }, body: {} })).status).toBe(200)
    expect(await eventsOf("agent.started", "agent_id", agent.id)).toBe(1)

    const refusedPause = await withEventRefused("agent.paused", () => client().agents.pause({ params: { agentId: agent.id }, body: { reason: "audit test" } }))
    expect(refusedPause.status).toBe(500)
    expect((await client().agents.get({ params: { agentId: agent.id } })).body.data?.status).toBe("running")
    expect(await eventsOf("agent.paused", "agent_id", agent.id)).toBe(0)
  })

  it("an agent's budget reservation: not made, and nothing submitted", async () => {
    const created = await client().agents.create({ body: { name: "audited budget", budgetLamports: 1_000_000, allowedIntents: ["transfer_sol"] } })
    const agent = created.body.data as { id: string; walletId: string }
    const refused = await withEventRefused("agent.budget.updated", () =>
      client().agents.execute({ params: { agentId: agent.id }, body: { type: "transfer_sol", protocol: "system-program", intent: { destination: "11111111111111111111111111111112", lamports: 1000 } } })
    )
    expect(refused.status).toBe(500)
    expect((await client().agents.budget({ params: { agentId: agent.id } })).body.data?.spentLamportsToday).toBe(0)
    expect((await admin.query("SELECT count(*) AS n FROM agent_budget_reservations WHERE agent_id = $1", [agent.id])).rows[0].n).toBe("0")
    expect((await admin.query("SELECT count(*) AS n FROM transactions WHERE agent_id = $1", [agent.id])).rows[0].n).toBe("0")
  })

  it("a wallet: not created", async () => {
    const label = `audited ${Date.now()}`
    const refused = await withEventRefused("wallet.created", () => client().wallets.create({ body: { label } }))
    expect(refused.status).toBe(500)
    expect((await admin.query("SELECT count(*) AS n FROM wallets WHERE label = $1", [label])).rows[0].n).toBe("0")
  })

  it("a capability manifest: not issued, and its revocation not made", async () => {
    const agent = await newAgent()
    const body = { allowedIntents: ["transfer_sol"], allowedProtocols: ["system-program"], ttlSeconds: 600 } as const
    const refused = await withEventRefused("agent.manifest.issued", () => client().agents.issueManifest({ params: { agentId: agent.id }, body }))
    expect(refused.status).toBe(500)
    expect((await admin.query("SELECT count(*) AS n FROM agent_manifests WHERE agent_id = $1", [agent.id])).rows[0].n).toBe("0")

    const issued = await client().agents.issueManifest({ params: { agentId: agent.id }, body })
    expect(issued.status).toBe(201)
    const nonce = (issued.body.data as { nonce: string }).nonce
    const refusedRevoke = await withEventRefused("agent.manifest.revoked", () => client().agents.revokeManifest({ params: { agentId: agent.id }, body: { nonce } }))
    expect(refusedRevoke.status).toBe(500)
    expect((await admin.query("SELECT revoked_at FROM agent_manifests WHERE nonce = $1", [nonce])).rows[0].revoked_at).toBeNull()
  })
})
