/**
 * Tenancy is data: a wallet created under tenant A is invisible to tenant B's key, whether or not B
 * sends x-tenant-id; an unbound key sees a tenant's wallets only when it names that tenant or `*`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { type RunningService, startService } from "../support/service.js"

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
    const created = await makeClient(service.baseUrl, A).wallets.create({ body: { label: "tenant a" } })
    expect(created.status).toBe(201)
    const id = created.body.data.id as string

    for (const headers of [B, { ...B, "x-tenant-id": "tenant-b" }, { ...B, "x-tenant-id": "*" }]) {
      const got = await makeClient(service.baseUrl, headers).wallets.get({ params: { walletId: id } })
      expect(got.status).toBe(404)
      const balance = await makeClient(service.baseUrl, headers).wallets.balance({ params: { walletId: id } })
      expect(balance.status).toBe(404)
      const listed = await makeClient(service.baseUrl, headers).wallets.list({ query: { limit: "100" } })
      expect(listed.body.data.wallets.map((w: { id: string }) => w.id)).not.toContain(id)
    }
    const spoofed = await makeClient(service.baseUrl, { ...B, "x-tenant-id": "tenant-a" }).wallets.get({ params: { walletId: id } })
    expect(spoofed.status).toBe(403)

    const own = await makeClient(service.baseUrl, A).wallets.get({ params: { walletId: id } })
    expect(own.status).toBe(200)
    const ownList = await makeClient(service.baseUrl, A).wallets.list({ query: { limit: "100" } })
    expect(ownList.body.data.wallets.map((w: { id: string }) => w.id)).toContain(id)
  })

  it("lets an unbound key act for a named tenant only", async () => {
    const created = await makeClient(service.baseUrl, { "x-api-key": "key-ops", "x-tenant-id": "tenant-c" }).wallets.create({ body: {} })
    const id = created.body.data.id as string
    const asC = await makeClient(service.baseUrl, { "x-api-key": "key-ops", "x-tenant-id": "tenant-c" }).wallets.get({ params: { walletId: id } })
    expect(asC.status).toBe(200)
    const asD = await makeClient(service.baseUrl, { "x-api-key": "key-ops", "x-tenant-id": "tenant-d" }).wallets.get({ params: { walletId: id } })
    expect(asD.status).toBe(404)
    const anyTenant = await makeClient(service.baseUrl, { "x-api-key": "key-ops" }).wallets.get({ params: { walletId: id } })
    expect(anyTenant.status).toBe(200)
    const fromA = await makeClient(service.baseUrl, A).wallets.get({ params: { walletId: id } })
    expect(fromA.status).toBe(404)
  })
})
