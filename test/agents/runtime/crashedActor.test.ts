/**
 * A crashing agent actor over HTTP: with the ledger unreachable every tick fails (no balance, no
 * tick), superviseActor restarts the actor with backoff, and GET /api/v1/runtime/actors shows its
 * restarts and last error; the autonomy state names the failing tick.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../../support/client.js"
import { type RunningService, startService } from "../../support/service.js"
import { autonomyState, createAgent, TENANT_KEYS, tenant, waitUntil } from "./harness.js"

let service: RunningService

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: { API_GATEWAY_API_KEYS: TENANT_KEYS, AGENT_LOOP_INTERVAL_MS: "200", CHAIN_RPC_MAX_RETRIES: "0", CHAIN_RPC_RETRY_DELAY_MS: "0" }
  })
})

afterAll(async () => {
  await service?.stop()
})

const ADMIN = { "x-api-key": "test-admin-key" }

describe("a crashing agent actor", () => {
  it("is restarted with backoff, its restarts and last error visible", async () => {
    const headers = tenant(0)
    const agent = await createAgent(service, headers, {
      autonomy: { enabled: true, cadenceSeconds: 1, steps: [{ id: "look", type: "query_balance", protocol: "system-program" }] }
    })
    const name = `agent:${agent.id}`
    const actor = () => makeClient(service.baseUrl, ADMIN).runtime.actor({ params: { name } })
    await waitUntil("two restarts", async () => (await actor()).body.data?.restarts >= 2)

    const shown = (await actor()).body.data
    expect(shown).toMatchObject({ name, kind: "agent" })
    expect(shown.lastError).toContain("getBalance")
    expect(shown.lastErrorAt).toEqual(expect.any(String))
    const listed = (await makeClient(service.baseUrl, ADMIN).runtime.actors({})).body.data.actors
    expect(listed.map((a: { name: string }) => a.name)).toEqual(expect.arrayContaining([name, "agent-scheduler", "agent-supervisor"]))
    const state = await autonomyState(service, agent.id, headers)
    expect(state.lastError).toMatch(/^tick \d+: /)
    expect(state.steps[0].runs).toBe(0)
  })
})
