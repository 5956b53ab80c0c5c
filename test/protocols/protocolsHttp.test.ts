/**
 * Protocol routes over HTTP against real ledgers: adapters, capabilities, versions; health read from
 * the chain (escrow deployed on a ledger that loaded programs/dist/escrow.so, not deployed on one that
 * did not, not configured without ESCROW_PROGRAM_ID); protocols without an adapter never report ok;
 * compatibility checks and intent migration; unknown protocols answer 404.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { LOCAL_ESCROW_PROGRAM_ID } from "../../src/config.js"
import { startTestLedger } from "../support/ledger.js"
import type { WireDataOf } from "../support/client.js"
import type { ProtocolsApi } from "../../schemas/api/protocols.js"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"

type Ledger = Awaited<ReturnType<typeof startTestLedger>>
let withEscrow: Ledger
let withoutEscrow: Ledger
let service: RunningService

/** Our own programs this service has no setting for (it runs on an outside ledger): fail closed, not ok. */
const NOT_CONFIGURED = ["lending-market", "liquid-staking"]

beforeAll(async () => {
  withEscrow = await startTestLedger({ escrow: true })
  withoutEscrow = await startTestLedger()
  service = await startService({ rpcUrl: withEscrow.rpcUrl, env: { ESCROW_PROGRAM_ID: LOCAL_ESCROW_PROGRAM_ID } })
})

afterAll(async () => {
  await service?.stop()
  await withEscrow?.close()
  await withoutEscrow?.close()
})

/** `D` names the data a call reads (the route's encoded success schema, see Wire). */
const get = <D = unknown>(path: string, svc = service) => api<D>(svc.baseUrl, "GET", path)
type Wire<K extends keyof typeof ProtocolsApi> = WireDataOf<(typeof ProtocolsApi)[K]>

describe("protocol adapters", () => {
  it("lists the nine adapters with version, capabilities and program ids", async () => {
    const listed = await get<Wire<"list">>("/api/v1/protocols")
    expect(listed.status).toBe(200)
    const protocols = listed.body.data.protocols
    expect(protocols.map((p) => p.protocol).sort()).toEqual(
      ["system-program", "spl-token", "escrow", "dex-aggregator", "amm-one", "amm-two", "liquid-staking", "lending-market", "nft-program"].sort()
    )
    const system = protocols.find((p) => p.protocol === "system-program")
    expect(system).toMatchObject({ version: "1.0.0", capabilities: ["transfer_sol", "create_account"], programIds: ["11111111111111111111111111111111"] })
    expect(protocols.find((p) => p.protocol === "escrow")?.programIds).toEqual([LOCAL_ESCROW_PROGRAM_ID])
    expect(Object.keys(system ?? {}).sort()).toEqual(["capabilities", "programIds", "protocol", "version"])
  })

  it("answers one adapter's capabilities and version, and 404 for an unknown protocol", async () => {
    const caps = await get("/api/v1/protocols/spl-token/capabilities")
    expect(caps.body.data).toMatchObject({ protocol: "spl-token", capabilities: ["transfer_spl", "create_mint", "mint_token", "burn_token", "x402_pay"] })
    const version = await get("/api/v1/protocols/amm-one/version")
    expect(version.body.data).toEqual({ protocol: "amm-one", version: "1.0.0" })
    for (const path of ["/capabilities", "/version", "/health"]) {
      const missing = await get(`/api/v1/protocols/not-a-protocol${path}`)
      expect(missing.status).toBe(404)
      expect(missing.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
      expect(missing.body.error).toContain("not-a-protocol")
    }
    const post = await api(service.baseUrl, "POST", "/api/v1/protocols/nope/compatibility-check", { type: "swap" })
    expect(post.status).toBe(404)
  })
})

describe("protocol health", () => {
  it("reports system-program and spl-token ok when their programs answer on chain", async () => {
    for (const protocol of ["system-program", "spl-token"]) {
      const health = await get(`/api/v1/protocols/${protocol}/health`)
      expect(health.status).toBe(200)
      expect(health.body.data).toEqual({ protocol, ok: true })
    }
  })

  it("reports escrow configured and deployed when the program is loaded", async () => {
    const health = await get<Wire<"protocolHealth">>("/api/v1/protocols/escrow/health")
    expect(health.body.data).toEqual({ protocol: "escrow", ok: true, configured: true, deployed: true, programId: LOCAL_ESCROW_PROGRAM_ID })
  })

  it("never reports a protocol whose program is not configured as ok", async () => {
    const all = await get<Wire<"health">>("/api/v1/protocols/health")
    const byProtocol = new Map<string, (typeof all.body.data.protocols)[number]>(all.body.data.protocols.map((p) => [p.protocol, p]))
    expect(byProtocol.size).toBe(9)
    for (const protocol of NOT_CONFIGURED) {
      expect(byProtocol.get(protocol)).toMatchObject({ ok: false, configured: false, deployed: false })
      expect(byProtocol.get(protocol)?.message).toMatch(/_PROGRAM_ID is not set/)
    }
    expect(byProtocol.get("escrow")).toMatchObject({ ok: true, configured: true, deployed: true })
    expect(byProtocol.get("system-program")).toMatchObject({ ok: true })
    // nft-program runs on Token-2022, the ATA and System programs, all on this ledger
    expect(byProtocol.get("nft-program")).toEqual({ protocol: "nft-program", ok: true })
    // the AMMs have adapters but this service runs on an outside ledger without AMM_*_PROGRAM_ID: not ok
    for (const protocol of ["amm-one", "amm-two", "dex-aggregator"]) {
      expect(byProtocol.get(protocol)).toMatchObject({ ok: false, configured: false })
    }
  })

  it("reports escrow not deployed on a ledger without the program, and not configured without ESCROW_PROGRAM_ID", async () => {
    const missing = await startService({ rpcUrl: withoutEscrow.rpcUrl, env: { ESCROW_PROGRAM_ID: LOCAL_ESCROW_PROGRAM_ID } })
    const unset = await startService({ rpcUrl: withEscrow.rpcUrl })
    try {
      const notDeployed = await get<Wire<"protocolHealth">>("/api/v1/protocols/escrow/health", missing)
      expect(notDeployed.body.data).toMatchObject({ protocol: "escrow", ok: false, configured: true, deployed: false })
      expect(notDeployed.body.data.message).toContain("not deployed")
      const notConfigured = await get<Wire<"protocolHealth">>("/api/v1/protocols/escrow/health", unset)
      expect(notConfigured.body.data).toMatchObject({ protocol: "escrow", ok: false, configured: false })
      expect(notConfigured.body.data.message).toContain("ESCROW_PROGRAM_ID")
    } finally {
      await missing.stop()
      await unset.stop()
    }
  })

  it("fails closed when the ledger does not answer", async () => {
    const offline = await startService({ rpcUrl: "http://127.0.0.1:9", env: { ESCROW_PROGRAM_ID: LOCAL_ESCROW_PROGRAM_ID, CHAIN_RPC_MAX_RETRIES: "0" } })
    try {
      const all = await get<Wire<"health">>("/api/v1/protocols/health", offline)
      expect(all.status).toBe(200)
      for (const entry of all.body.data.protocols) expect(entry.ok).toBe(false)
      const system = await get<Wire<"protocolHealth">>("/api/v1/protocols/system-program/health", offline)
      expect(system.body.data.ok).toBe(false)
      expect(system.body.data.message).toContain("RPC unavailable")
      const escrow = await get<Wire<"protocolHealth">>("/api/v1/protocols/escrow/health", offline)
      expect(escrow.body.data).toMatchObject({ ok: false, configured: true, deployed: false })
    } finally {
      await offline.stop()
    }
  })
})

describe("compatibility check and intent migration", () => {
  const post = <D = unknown>(path: string, body: unknown) => api<D>(service.baseUrl, "POST", path, body)

  it("checks an intent against the adapter's capabilities and fields", async () => {
    const good = await post("/api/v1/protocols/system-program/compatibility-check", {
      type: "transfer_sol",
      intent: { destination: "11111111111111111111111111111111", lamports: 1000 }
    })
    expect(good.status).toBe(200)
    expect(good.body.data).toMatchObject({ protocol: "system-program", version: "1.0.0", type: "transfer_sol", compatible: true, errors: [] })
    const wrongType = await post<Wire<"compatibilityCheck">>("/api/v1/protocols/system-program/compatibility-check", { type: "swap", intent: {} })
    expect(wrongType.body.data.compatible).toBe(false)
    expect(wrongType.body.data.errors[0]).toContain("not a capability")
    const legacy = await post<Wire<"compatibilityCheck">>("/api/v1/protocols/amm-one/compatibility-check", {
      type: "swap",
      intent: { inputMint: "So11111111111111111111111111111111111111112", outputMint: "So11111111111111111111111111111111111111112", amount: "10", slippageBps: 50 }
    })
    expect(legacy.body.data.warnings.join(" ")).toContain("migrate-intent")
    const badType = await post("/api/v1/protocols/system-program/compatibility-check", { type: "fly" })
    expect(badType.status).toBe(400)
    expect(badType.body.error).toContain("type")
  })

  it("migrates a legacy intent to the target version and refuses an unknown version", async () => {
    const migrated = await post("/api/v1/protocols/amm-one/migrate-intent", { intent: { slippageBps: 75, amount: "10" }, targetVersion: "1.0.0" })
    expect(migrated.status).toBe(200)
    expect(migrated.body.data).toEqual({
      protocol: "amm-one",
      fromVersion: "0.9.0",
      targetVersion: "1.0.0",
      intent: { maxSlippageBps: 75, amount: "10" },
      changes: ["1.0.0: renamed slippageBps to maxSlippageBps"]
    })
    const unknown = await post("/api/v1/protocols/amm-one/migrate-intent", { intent: {}, targetVersion: "9.9.9" })
    expect(unknown.status).toBe(400)
    expect(unknown.body.error).toContain("targetVersion")
    const missing = await post("/api/v1/protocols/amm-one/migrate-intent", { targetVersion: "1.0.0" })
    expect(missing.status).toBe(400)
    expect(missing.body.error).toContain("intent")
  })
})
