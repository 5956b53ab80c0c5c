/**
 * Tenancy is data: a wallet created under tenant A is invisible to tenant B's key, whether or not B
 * sends x-tenant-id; an unbound key sees a tenant's wallets only when it names that tenant or `*`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { api, type RunningService, startService } from "../support/service.js"

let service: RunningService
const A = { "x-api-key": "key-a" }
const B = { "x-api-key": "key-b" }

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: { API_GATEWAY_API_KEYS: "key-a:tenant-a:wallets;key-b:tenant-b:wallets;key-ops:*:all" }
  })
})

afterAll(async () => {
  await service?.stop()
})

describe("tenant isolation", () => {
  it("keeps tenant A's wallet invisible to tenant B, with and without x-tenant-id", async () => {
    const created = await api(service.baseUrl, "POST", "/api/v1/wallets", { label: "tenant a" }, A)
    expect(created.status).toBe(201)
    const id = created.body.data.id as string

    for (const headers of [B, { ...B, "x-tenant-id": "tenant-b" }, { ...B, "x-tenant-id": "*" }]) {
      const got = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}`, undefined, headers)
      expect(got.status).toBe(404)
      const balance = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}/balance`, undefined, headers)
      expect(balance.status).toBe(404)
      const listed = await api(service.baseUrl, "GET", "/api/v1/wallets?limit=100", undefined, headers)
      expect(listed.body.data.wallets.map((w: { id: string }) => w.id)).not.toContain(id)
    }
    const spoofed = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}`, undefined, { ...B, "x-tenant-id": "tenant-a" })
    expect(spoofed.status).toBe(403)

    const own = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}`, undefined, A)
    expect(own.status).toBe(200)
    const ownList = await api(service.baseUrl, "GET", "/api/v1/wallets?limit=100", undefined, A)
    expect(ownList.body.data.wallets.map((w: { id: string }) => w.id)).toContain(id)
  })

  it("lets an unbound key act for a named tenant only", async () => {
    const created = await api(service.baseUrl, "POST", "/api/v1/wallets", {}, { "x-api-key": "key-ops", "x-tenant-id": "tenant-c" })
    const id = created.body.data.id as string
    const asC = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}`, undefined, { "x-api-key": "key-ops", "x-tenant-id": "tenant-c" })
    expect(asC.status).toBe(200)
    const asD = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}`, undefined, { "x-api-key": "key-ops", "x-tenant-id": "tenant-d" })
    expect(asD.status).toBe(404)
    const anyTenant = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}`, undefined, { "x-api-key": "key-ops" })
    expect(anyTenant.status).toBe(200)
    const fromA = await api(service.baseUrl, "GET", `/api/v1/wallets/${id}`, undefined, A)
    expect(fromA.status).toBe(404)
  })
})
