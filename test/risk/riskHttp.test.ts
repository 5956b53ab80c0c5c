/**
 * Risk configs over HTTP: protocol risk configs (create when absent, partial update, null clears,
 * bps 0-10000, unknown fields refused) and portfolio risk controls per wallet, tenant-filtered.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"

let service: RunningService
const A = { "x-api-key": "key-a" }
const B = { "x-api-key": "key-b" }
const POOL = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: { API_GATEWAY_API_KEYS: "test-admin-key:*:all;key-a:tenant-a:all;key-b:tenant-b:all" }
  })
}, 60_000)
afterAll(async () => {
  await service?.stop()
})

const call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => api(service.baseUrl, method, path, body, headers)

describe("protocol risk configs over HTTP", () => {
  it("creates on first PUT with defaults, then changes only the provided fields", async () => {
    // Never configured: the defaults the engine applies, not a 404; every field of the spec, null for no bound,
    // and no time of a change that never happened.
    const defaults = await makeClient(service.baseUrl, A).risk.getProtocol({ params: { protocol: "amm-one" } })
    expect(defaults.status).toBe(200)
    expect(defaults.body).toMatchObject({ status: "success", errorCode: null })
    expect(defaults.body.data).toEqual({
      protocol: "amm-one", version: "1", maxSlippageBps: null, maxPoolConcentrationBps: null, allowedPools: [], allowedPrograms: [],
      oracleDeviationBps: null, requireOracleForSwap: false, maxQuoteAgeSeconds: null, deltaVarianceBpsThreshold: null, gaslessEligible: false,
      updatedAt: null
    })
    const created = await makeClient(service.baseUrl, A).risk.putProtocol({ params: { protocol: "amm-one" }, body: { maxSlippageBps: 150, allowedPools: [POOL] } })
    expect(created.status).toBe(200)
    expect(created.body.data).toMatchObject({
      protocol: "amm-one",
      version: "1",
      maxSlippageBps: 150,
      allowedPools: [POOL],
      allowedPrograms: [],
      requireOracleForSwap: false,
      gaslessEligible: false
    })
    const updated = await makeClient(service.baseUrl, A).risk.putProtocol({ params: { protocol: "amm-one" }, body: { oracleDeviationBps: 200, maxSlippageBps: null, version: "2" } })
    expect(updated.body.data).toMatchObject({ version: "2", oracleDeviationBps: 200, allowedPools: [POOL] })
    expect(updated.body.data.maxSlippageBps).toBeNull()
    expect(Date.parse(updated.body.data.updatedAt ?? "")).toBeGreaterThan(Date.now() - 60_000)
    expect((await makeClient(service.baseUrl, A).risk.getProtocol({ params: { protocol: "amm-one" } })).body.data).toEqual(updated.body.data)
    const listed = await makeClient(service.baseUrl, A).risk.listProtocols({})
    expect(listed.body.data.protocols.map((p: { protocol: string }) => p.protocol)).toEqual(["amm-one"])
  })

  it("refuses out-of-range bps and unknown fields with a 400 naming the field, changing nothing", async () => {
    await makeClient(service.baseUrl, A).risk.putProtocol({ params: { protocol: "amm-two" }, body: { maxSlippageBps: 100 } })
    for (const [body, field] of [
      [{ maxSlippageBps: 10_001 }, "maxSlippageBps"],
      [{ deltaVarianceBpsThreshold: -1 }, "deltaVarianceBpsThreshold"],
      [{ maxSlipageBps: 1 }, "maxSlipageBps"],
      [{ allowedPools: ["not base58!"] }, "allowedPools[0]"]
    ] as const) {
      const refused = await api(service.baseUrl, "PUT", "/api/v1/risk/protocols/amm-two", body, A)
      expect(refused.status).toBe(400)
      expect(refused.body.error).toContain(field)
    }
    expect((await makeClient(service.baseUrl, A).risk.getProtocol({ params: { protocol: "amm-two" } })).body.data.maxSlippageBps).toBe(100)
  })

  it("refuses a name that is not one of the nine protocol identifiers with a 400 naming protocol, storing nothing", async () => {
    for (const name of ["not-a-protocol", "AMM-ONE", "%00", "system-program2"]) {
      for (const method of ["PUT", "GET"]) {
        const refused = await call(method, `/api/v1/risk/protocols/${name}`, method === "PUT" ? { maxSlippageBps: 10 } : undefined, A)
        expect(refused.status, `${method} ${name}`).toBe(400)
        expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
        // A NUL is refused by the input check every string passes first; any other name by the protocol list.
        expect(refused.body.error).toContain(name === "%00" ? "protocol: must not contain a NUL character" : "protocol: must be one of: system-program, spl-token, escrow")
      }
    }
    const listed = await makeClient(service.baseUrl, A).risk.listProtocols({})
    expect(listed.body.data.protocols.map((p: { protocol: string }) => p.protocol)).not.toContain("not-a-protocol")
  })

  it("keeps each tenant's configs apart", async () => {
    await makeClient(service.baseUrl, A).risk.putProtocol({ params: { protocol: "lending-market" }, body: { maxPoolConcentrationBps: 500 } })
    const seenByB = await makeClient(service.baseUrl, B).risk.getProtocol({ params: { protocol: "lending-market" } })
    expect(seenByB.status).toBe(200)
    expect(seenByB.body.data.maxPoolConcentrationBps).toBeNull()
    const listedB = await makeClient(service.baseUrl, B).risk.listProtocols({})
    expect(listedB.body.data.protocols).toEqual([])
  })
})

describe("portfolio risk controls over HTTP", () => {
  it("reads defaults for a wallet, updates partially, lists, and hides other tenants' wallets", async () => {
    const walletId = (await makeClient(service.baseUrl, A).wallets.create({ body: {} })).body.data.id as string
    const defaults = await makeClient(service.baseUrl, A).risk.getPortfolio({ params: { walletId } })
    expect(defaults.body.data).toEqual({
      walletId, maxDrawdownLamports: null, maxDailyLossLamports: null, maxExposureBpsPerToken: null, maxExposureBpsPerProtocol: null,
      autoPauseOnBreach: true, updatedAt: null
    })
    const put = await makeClient(service.baseUrl, A).risk.putPortfolio({ params: { walletId }, body: { maxDrawdownLamports: "5000000000", maxExposureBpsPerToken: 2500 } })
    expect(put.body.data).toMatchObject({ walletId, maxDrawdownLamports: 5_000_000_000, maxExposureBpsPerToken: 2500, autoPauseOnBreach: true })
    const second = await makeClient(service.baseUrl, A).risk.putPortfolio({ params: { walletId }, body: { autoPauseOnBreach: false, maxExposureBpsPerToken: null } })
    expect(second.body.data).toMatchObject({ maxDrawdownLamports: 5_000_000_000, autoPauseOnBreach: false })
    expect(second.body.data.maxExposureBpsPerToken).toBeNull()
    const listed = await makeClient(service.baseUrl, A).risk.listPortfolio({})
    expect(listed.body.data.controls.map((c: { walletId: string }) => c.walletId)).toContain(walletId)
    expect((await makeClient(service.baseUrl, A).risk.putPortfolio({ params: { walletId }, body: { maxExposureBpsPerProtocol: 10_001 } })).body.error).toContain(
      "maxExposureBpsPerProtocol"
    )
    expect((await makeClient(service.baseUrl, B).risk.getPortfolio({ params: { walletId } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).risk.putPortfolio({ params: { walletId }, body: { autoPauseOnBreach: true } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).risk.listPortfolio({})).body.data.controls).toEqual([])
  })
})
