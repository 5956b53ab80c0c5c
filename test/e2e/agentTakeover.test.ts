/**
 * Agents across processes (issue 35): two service processes on one PostgreSQL run each autonomous agent
 * in exactly one of them (one live lease per agent, one tick a second, not two); when the process running
 * them is killed (-9: no goodbye, its leases stay until they lapse), the other takes every agent within
 * the lease time and they tick on from their durable counters.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { AgentsApi } from "../../schemas/api/agents.js"
import type { RuntimeApi } from "../../schemas/api/runtime.js"
import type { WireDataOf } from "../support/client.js"
import { call, type ServiceProcess, type SharedDeployment, startSharedDeployment } from "../support/processes.js"
import { sleep } from "../support/wait.js"

const AGENTS = 12
// Leases live max(5 x loop, 15 s): 15 s here.
const LOOP_MS = 1_000
const LEASE_MS = 15_000
const ENV = { AGENT_LOOP_INTERVAL_MS: String(LOOP_MS) }

let deployment: SharedDeployment

beforeAll(async () => {
  deployment = await startSharedDeployment("custody-takeover-")
})

afterAll(async () => {
  await deployment?.close()
})

interface LeaseRow {
  readonly agent_id: string
  readonly owner_id: string
  readonly live: boolean
}

const leases = () => deployment.database.query<LeaseRow>(`SELECT agent_id::text, owner_id, expires_at > now() AS live FROM agent_leases`)
const ticks = async () =>
  new Map((await deployment.database.query<{ agent_id: string; tick: string }>(`SELECT agent_id::text, tick::text FROM agent_runtime_state`)).map((row) => [row.agent_id, Number(row.tick)] as const))

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs: number) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(200)
  }
  return timeoutMs - (deadline - Date.now())
}

describe("agents across two processes", () => {
  it("runs each agent in one process, and the survivor takes a killed process's agents within the lease time", async () => {
    const first = await deployment.startService(ENV)
    const ids: Array<string> = []
    for (let i = 0; i < AGENTS; i++) {
      const created = await call<WireDataOf<typeof AgentsApi.create>>(first.baseUrl, "POST", "/api/v1/agents", {
        name: `takeover-${i}`,
        autonomy: { enabled: true, mode: "paper", cadenceSeconds: 1, steps: [{ id: "look", type: "query_balance", protocol: "system-program", maxRuns: 1_000_000 }] }
      })
      expect(created.status).toBe(201)
      expect((await call(first.baseUrl, "POST", `/api/v1/agents/${created.body.data.id}/start`, {})).status).toBe(200)
      ids.push(created.body.data.id)
    }
    const second = await deployment.startService(ENV)
    await waitFor("every agent leased", async () => (await leases()).filter((lease) => lease.live).length === AGENTS, 30_000)

    // Each agent in exactly one process (one live lease, one actor in one of the two), ticking about once
    // a second (two processes would make two).
    const held = await leases()
    expect(held.map((lease) => lease.agent_id).sort()).toEqual([...ids].sort())
    const actorsOf = async (service: ServiceProcess) =>
      (await call<WireDataOf<typeof RuntimeApi.actors>>(service.baseUrl, "GET", "/api/v1/runtime/actors?limit=100")).body.data.actors
        .map((actor) => actor.name)
        .filter((name) => name.startsWith("agent:"))
    const inFirst = await actorsOf(first)
    const inSecond = await actorsOf(second)
    expect([...inFirst, ...inSecond].sort()).toEqual(ids.map((id) => `agent:${id}`).sort())
    const before = await ticks()
    await sleep(5_000)
    const after = await ticks()
    for (const id of ids) expect(after.get(id)! - before.get(id)!).toBeLessThanOrEqual(7)
    for (const id of ids) {
      const state = await call<WireDataOf<typeof AgentsApi.autonomyState>>(first.baseUrl, "GET", `/api/v1/agents/${id}/autonomy/state`)
      expect(state.body.data.running).toBe(true)
    }

    // Kill -9 the process running more of them: no release, its leases stay until they lapse.
    const [victim, survivor, moving] = inFirst.length >= inSecond.length ? [first, second, inFirst] : [second, first, inSecond]
    expect(moving.length).toBeGreaterThan(0)
    victim.kill("SIGKILL")
    await victim.exited
    const tookMs = await waitFor(
      "the survivor to run every agent",
      async () => (await actorsOf(survivor)).length === AGENTS && (await leases()).every((lease) => lease.live),
      LEASE_MS + 15_000
    )
    expect(tookMs).toBeLessThanOrEqual(LEASE_MS + 3 * LOOP_MS)
    expect(new Set((await leases()).map((lease) => lease.owner_id)).size).toBe(1)

    // They tick on in the survivor, from their counters, and report running.
    const resumed = await ticks()
    await sleep(3_000)
    const later = await ticks()
    for (const id of ids) expect(later.get(id)!).toBeGreaterThan(resumed.get(id)!)
    for (const id of ids) {
      const state = await call<WireDataOf<typeof AgentsApi.autonomyState>>(survivor.baseUrl, "GET", `/api/v1/agents/${id}/autonomy/state`)
      expect(state.body.data.running).toBe(true)
    }
  }, 180_000)
})
