/**
 * Auto-funding has a daily cap per tenant (issue 11 item 5): past WALLET_AUTOFUND_DAILY_CAP_LAMPORTS a
 * wallet create with autoFund is refused with a clear 403 and creates nothing; other tenants and
 * wallets without autoFund are not affected.
 */
import { describe, expect, it } from "vitest"
import { useServiceWithLedger } from "../support/harness.js"
import { type EndpointInput, makeClient } from "../support/client.js"
import type { WalletsApi } from "../../schemas/api/wallets.js"

const A = { "x-api-key": "key-a" }
const B = { "x-api-key": "key-b" }
const env = useServiceWithLedger({
  env: { API_GATEWAY_API_KEYS: "key-a:tenant-a:all;key-b:tenant-b:all;key-c:tenant-c:all", WALLET_AUTOFUND_DAILY_CAP_LAMPORTS: "3000000000" }
})

const create = (body: EndpointInput<typeof WalletsApi.create>["body"], headers: Record<string, string>) => makeClient(env.service.baseUrl, headers).wallets.create({ body })
const walletCount = async (headers: Record<string, string>) => (await makeClient(env.service.baseUrl, headers).wallets.list({})).body.data.total

describe("the daily auto-funding cap per tenant", () => {
  it("funds up to the cap, then refuses with a clear error and creates nothing", async () => {
    const first = await create({ autoFund: true, fundLamports: 2_000_000_000 }, A)
    expect(first.status).toBe(201)
    expect(first.body.data.funding).toMatchObject({ ok: true, lamports: 2_000_000_000 })
    const count = await walletCount(A)

    const refused = await create({ autoFund: true, fundLamports: 1_500_000_000 }, A)
    expect(refused.status).toBe(403)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "POLICY_VIOLATION", failedAt: "policy", data: null })
    expect(refused.body.error).toMatch(/^autoFund: the daily auto-funding cap of tenant tenant-a is 3000000000 lamports; 2000000000 used today \(UTC\), 1500000000 asked/)
    expect(await walletCount(A)).toBe(count)

    // What is left of the cap can still be used; a wallet without funding is never refused.
    expect((await create({ autoFund: true, fundLamports: 1_000_000_000 }, A)).status).toBe(201)
    expect((await create({ autoFund: true, fundLamports: 1 }, A)).status).toBe(403)
    expect((await create({ label: "unfunded" }, A)).status).toBe(201)
  })

  it("counts each tenant on its own", async () => {
    const other = await create({ autoFund: true, fundLamports: 3_000_000_000 }, B)
    expect(other.status).toBe(201)
    expect(other.body.data.funding?.ok).toBe(true)
  })

  it("never lets concurrent creates pass the cap together", async () => {
    const C = { "x-api-key": "key-c" }
    const replies = await Promise.all(Array.from({ length: 5 }, () => create({ autoFund: true, fundLamports: 1_000_000_000 }, C)))
    expect(replies.map((r) => r.status).sort()).toEqual([201, 201, 201, 403, 403])
    expect(await walletCount(C)).toBe(3)
  })
})
