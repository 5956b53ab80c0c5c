/**
 * The /api/v1/defi/* helpers on an external cluster where our programs are not configured: stake, unstake
 * (without LIQUID_STAKING_PROGRAM_ID) and lend supply/borrow (without LENDING_MARKET_PROGRAM_ID) fail closed
 * with the spec's build-failure envelope (500, PIPELINE_ERROR, failedAt `build`) naming the setting; not a
 * routing 404. A bad body is still a 400 naming the field.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"

let service: RunningService
beforeAll(async () => {
  service = await startService({ rpcUrl: "http://127.0.0.1:9" })
}, 120_000)
afterAll(async () => {
  await service?.stop()
})

const MINT_B = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"
const WALLET = "9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM"

const STAKING: ReadonlyArray<readonly [path: string, body: Record<string, unknown>]> = [
  ["/api/v1/defi/stake", { protocol: "liquid-staking", wallet: WALLET, amount: "1000000" }],
  ["/api/v1/defi/unstake", { protocol: "liquid-staking", wallet: WALLET, amount: "1000000" }]
]

const LENDING: ReadonlyArray<readonly [path: string, body: Record<string, unknown>]> = [
  ["/api/v1/defi/lend/supply", { protocol: "lending-market", wallet: WALLET, mint: MINT_B, amount: "1000" }],
  ["/api/v1/defi/lend/borrow", { protocol: "lending-market", wallet: WALLET, mint: MINT_B, amount: "1000" }]
]

describe("DeFi helpers where our programs are not configured", () => {
  it.each(LENDING)("POST %s fails closed at build where lending-market is not configured", async (path, body) => {
    const response = await api(service.baseUrl, "POST", path, body)
    expect(response.status).toBe(500)
    expect(response.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build", stage: "build", data: null })
    expect(response.body.error).toContain("LENDING_MARKET_PROGRAM_ID is not set")
    expect(response.body.errorMessage).toBe(response.body.error)
  })

  it("reports lending-market unhealthy where LENDING_MARKET_PROGRAM_ID is not set", async () => {
    const health = await makeClient(service.baseUrl).protocols.protocolHealth({ params: { protocol: "lending-market" } })
    expect(health.status).toBe(200)
    expect(health.body.data).toMatchObject({ protocol: "lending-market", ok: false, configured: false, deployed: false })
    expect(health.data?.message).toContain("LENDING_MARKET_PROGRAM_ID is not set")
  })

  it("refuses a lend body without its mint with a 400 naming the field", async () => {
    const response = await api(service.baseUrl, "POST", "/api/v1/defi/lend/borrow", { protocol: "lending-market", wallet: WALLET, amount: "1" })
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({ errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(response.body.error).toContain("mint")
  })

  it.each(STAKING)("POST %s fails closed at build where liquid-staking is not configured", async (path, body) => {
    const response = await api(service.baseUrl, "POST", path, body)
    expect(response.status).toBe(500)
    expect(response.body).toMatchObject({ status: "failure", errorCode: "PIPELINE_ERROR", failedAt: "build", data: null })
    expect(response.body.error).toContain("LIQUID_STAKING_PROGRAM_ID is not set")
  })

  it("reports liquid-staking unhealthy where LIQUID_STAKING_PROGRAM_ID is not set", async () => {
    const health = await makeClient(service.baseUrl).protocols.protocolHealth({ params: { protocol: "liquid-staking" } })
    expect(health.status).toBe(200)
    expect(health.body.data).toMatchObject({ protocol: "liquid-staking", ok: false, configured: false, deployed: false })
    expect(health.body.data.message).toContain("LIQUID_STAKING_PROGRAM_ID is not set")
  })

  it("takes walletAddress (the spec's tool argument name) for wallet; refuses neither, or two that differ", async () => {
    for (const [path, { wallet, ...rest }] of [...LENDING, ...STAKING]) {
      const aliased = await api(service.baseUrl, "POST", path, { ...rest, walletAddress: wallet })
      expect(aliased.status, path).toBe(500)
      expect(aliased.body).toMatchObject({ errorCode: "PIPELINE_ERROR", failedAt: "build" })
      const both = await api(service.baseUrl, "POST", path, { ...rest, wallet, walletAddress: wallet })
      expect(both.status, path).toBe(500)
      const neither = await api(service.baseUrl, "POST", path, rest)
      expect(neither.status, path).toBe(400)
      expect(neither.body.error).toMatch(/^wallet: is missing \(or send walletAddress\)/)
      const differ = await api(service.baseUrl, "POST", path, { ...rest, wallet, walletAddress: MINT_B })
      expect(differ.status, path).toBe(400)
      expect(differ.body.error).toMatch(/^walletAddress: must equal wallet when both are given/)
    }
    const quote = await api(service.baseUrl, "POST", "/api/v1/defi/quote", { protocol: "amm-one", inputMint: MINT_B, outputMint: WALLET, amount: "1", walletAddress: WALLET })
    expect(quote.body.error ?? "").not.toMatch(/wallet/)
  })

  it("refuses a bad body with a 400 naming the field", async () => {
    const response = await api(service.baseUrl, "POST", "/api/v1/defi/stake", { protocol: "amm-one", wallet: WALLET, amount: "1" })
    expect(response.status).toBe(400)
    expect(response.body).toMatchObject({ errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(response.body.error).toContain("protocol")
  })

  it("needs the protocols scope like /protocols ([n17])", async () => {
    const response = await api(service.baseUrl, "POST", "/api/v1/defi/stake", STAKING[0]![1], { "x-api-key": "unknown" })
    expect(response.status).toBe(401)
  })
})
