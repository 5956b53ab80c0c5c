/**
 * Lists that grow (issue 35): every list answers `nextCursor`, and `?cursor=` continues exactly after the
 * page that answered it, even when rows were added meanwhile (where `offset` would repeat one); a cursor
 * that is not one of the list's is a 400 naming `cursor`; counts stop at LIST_TOTAL_CAP (`totalCapped`);
 * limit/offset still page as before.
 */
import { SqlClient } from "@effect/sql"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import type { AgentsApi } from "../../schemas/api/agents.js"
import type { AuditApi } from "../../schemas/api/audit.js"
import type { TransactionsApi } from "../../schemas/api/transactions.js"
import type { WalletsApi } from "../../schemas/api/wallets.js"
import { LIST_TOTAL_CAP } from "../../schemas/common.js"
import type { WireDataOf } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { api } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"

const env = useServiceWithLedger()
const get = <D>(path: string) => api<D>(env.service.baseUrl, "GET", path)

const queryBalance = async (walletId: string) => {
  const created = await submit(env.service.baseUrl, { walletId, type: "query_balance", protocol: "system-program", intent: {} })
  await waitSettled(env.service.baseUrl, created.body.data.id)
  return created.body.data.id
}

type TxPage = WireDataOf<typeof TransactionsApi.listByWallet>

/** Every page of a list from its first, following nextCursor; the ids in order. */
const walk = async <D extends { readonly nextCursor: string | null }>(first: string, idsOf: (data: D) => Array<string>, between?: () => Promise<void>) => {
  const seen: Array<string> = []
  let page = (await get<D>(first)).body.data
  for (;;) {
    seen.push(...idsOf(page))
    if (page.nextCursor === null) return seen
    await between?.()
    const next = await get<D>(`${first}&cursor=${page.nextCursor}`)
    expect(next.status).toBe(200)
    page = next.body.data
  }
}

describe("cursor pages", () => {
  it("walk a wallet's transactions newest first with no repeat or gap while new ones arrive", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const ids: Array<string> = []
    for (let i = 0; i < 5; i++) ids.push(await queryBalance(wallet.id))
    const newestFirst = [...ids].reverse()
    const path = `/api/v1/wallets/${wallet.id}/transactions?limit=2`

    const first = (await get<TxPage>(path)).body.data
    expect(first).toMatchObject({ total: 5, totalCapped: false, limit: 2, offset: 0 })
    expect(first.transactions.map((t) => t.id)).toEqual(newestFirst.slice(0, 2))

    // Two more arrive while a client pages: the cursor walk still answers exactly the five it started
    // from, once each (offset pages would repeat the ones pushed down).
    const added: Array<string> = []
    const walked = await walk<TxPage>(path, (page) => page.transactions.map((t) => t.id), async () => {
      if (added.length < 2) added.push(await queryBalance(wallet.id))
    })
    expect(added).toHaveLength(2)
    expect(walked).toEqual(newestFirst)

    // limit/offset as before: the page at offset 2 of seven.
    const byOffset = (await get<TxPage>(`${path}&offset=2`)).body.data
    expect(byOffset).toMatchObject({ total: 7, offset: 2 })
    expect(byOffset.transactions.map((t) => t.id)).toEqual([...ids, ...added].reverse().slice(2, 4))
  })

  it("refuses a cursor that is not one of the list's with a 400 naming cursor", async () => {
    const wallet = await createWallet(env.service.baseUrl)
    const audit = (await get<WireDataOf<typeof AuditApi.list>>("/api/v1/audit/events?limit=1")).body.data
    expect(audit.nextCursor).not.toBeNull()
    for (const cursor of ["not base64 url!", "W10", Buffer.from('{"a":1}').toString("base64url"), audit.nextCursor]) {
      const answer = await get(`/api/v1/wallets/${wallet.id}/transactions?cursor=${encodeURIComponent(String(cursor))}`)
      expect(answer.status, String(cursor)).toBe(400)
      expect(answer.body.errorCode).toBe("VALIDATION_ERROR")
      expect(answer.body.error).toMatch(/^cursor: /)
    }
  })

  it("pages wallets and agents by cursor too", async () => {
    for (let i = 0; i < 3; i++) await createWallet(env.service.baseUrl)
    const wallets = await walk<WireDataOf<typeof WalletsApi.list>>("/api/v1/wallets?limit=2", (page) => page.wallets.map((w) => w.id))
    const all = (await get<WireDataOf<typeof WalletsApi.list>>("/api/v1/wallets?limit=100")).body.data
    expect(wallets).toEqual(all.wallets.map((w) => w.id))

    for (let i = 0; i < 3; i++) await api(env.service.baseUrl, "POST", "/api/v1/agents", { name: `paged-${i}`, executionMode: "supervised" })
    const agents = (await get<WireDataOf<typeof AgentsApi.list>>("/api/v1/agents?limit=2")).body.data
    expect(agents.agents).toHaveLength(2)
    expect(agents.total).toBeGreaterThanOrEqual(3)
    const rest = (await get<WireDataOf<typeof AgentsApi.list>>(`/api/v1/agents?limit=100&cursor=${agents.nextCursor}`)).body.data
    expect(rest.agents.map((a) => a.id)).not.toContain(agents.agents[0]?.id)
    expect(rest.agents.length + 2).toBe(agents.total)
  })

  it("counts at most LIST_TOTAL_CAP matches and says so, and the cursor still reaches past them", async () => {
    const tenant = `capped-${Date.now()}`
    await env.service.runtime.runPromise(
      Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
        INSERT INTO audit_events (id, tenant_id, event_type, message)
        SELECT gen_random_uuid(), ${tenant}, 'custom.bulk', 'bulk ' || n FROM generate_series(1, ${LIST_TOTAL_CAP + 5}) AS n`)
    )
    const headers = { "x-api-key": "test-admin-key", "x-tenant-id": tenant }
    const first = await api<WireDataOf<typeof AuditApi.list>>(env.service.baseUrl, "GET", "/api/v1/audit/events?limit=1000", undefined, headers)
    expect(first.body.data).toMatchObject({ total: LIST_TOTAL_CAP, totalCapped: true })
    expect(first.body.data.events[0]?.message).toBe(`bulk ${LIST_TOTAL_CAP + 5}`)
    const deep = await api<WireDataOf<typeof AuditApi.list>>(env.service.baseUrl, "GET", `/api/v1/audit/events?limit=10&offset=${LIST_TOTAL_CAP - 5}`, undefined, headers)
    expect(deep.body.data.events.map((e) => e.message)).toEqual(Array.from({ length: 10 }, (_, i) => `bulk ${10 - i}`))
    expect(deep.body.data.nextCursor).toBeNull()
  })
})
