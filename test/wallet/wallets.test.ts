/**
 * Wallet lifecycle over HTTP against the real ledger and database: create with and without autoFund,
 * list with pagination, get, balance as web3.js reads it, tokens, invalid bodies changing nothing.
 * Calls go through the typed client (test/support/client.ts); refused bodies through raw `api()`.
 */
import { Connection, PublicKey } from "@solana/web3.js"
import { describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { useServiceWithLedger } from "../support/harness.js"
import { ADMIN_KEY, api } from "../support/service.js"

const env = useServiceWithLedger()
const client = () => makeClient(env.service.baseUrl)

const walletCount = async () => (await client().wallets.list({ query: { limit: "1" } })).body.data.total as number

describe("wallets over HTTP", () => {
  it("creates a wallet without funding: success envelope, 201, a real address with zero balance", async () => {
    const created = await client().wallets.create({ body: { label: "plain" } })
    expect(created.status).toBe(201)
    expect(created.body).toMatchObject({ status: "success", errorCode: null, failedAt: null })
    const wallet = created.data!
    expect(wallet).toMatchObject({
      label: "plain",
      provider: "local-dev",
      status: "active",
      keyProvenance: { backend: "encrypted-file", custody: "local", deterministicAddressing: false }
    })
    expect(() => new PublicKey(wallet.publicKey)).not.toThrow()
    const balance = await client().wallets.balance({ params: { walletId: wallet.id } })
    expect(balance.data).toEqual({ lamports: 0n, sol: 0 })
  })

  it("accepts fundLamports without autoFund (0 included) and ignores it; with autoFund it must be at least 1", async () => {
    for (const fundLamports of [0, 5_000_000]) {
      const created = await client().wallets.create({ body: { autoFund: false, fundLamports } })
      expect(created.status).toBe(201)
      expect(created.data!.funding).toBeUndefined()
      const balance = await client().wallets.balance({ params: { walletId: created.data!.id } })
      expect(balance.data).toEqual({ lamports: 0n, sol: 0 })
    }
    const before = await walletCount()
    const refused = await client().wallets.create({ body: { autoFund: true, fundLamports: 0 } })
    expect(refused.status).toBe(400)
    expect(refused.data).toBeUndefined()
    expect(refused.body).toMatchObject({ errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(refused.body.error).toBe("fundLamports: must be at least 1 when autoFund is true")
    expect(await walletCount()).toBe(before)
  })

  it("creates a funded wallet whose balance matches what web3.js reads from the ledger", async () => {
    const created = await client().wallets.create({ body: { label: "funded", autoFund: true, fundLamports: 1_500_000_000 } })
    expect(created.status).toBe(201)
    expect(created.data!.funding).toMatchObject({ ok: true, lamports: 1_500_000_000n })
    const walletId = created.data!.id
    const balance = await client().wallets.balance({ params: { walletId } })
    const onChain = await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(created.data!.publicKey))
    expect(onChain).toBe(1_500_000_000)
    expect(balance.data).toEqual({ lamports: BigInt(onChain), sol: 1.5 })
    const tokens = await client().wallets.tokens({ params: { walletId } })
    expect(tokens.data).toEqual({ tokens: [] })
  })

  it("answers a create sent again with its idempotencyKey (the first answer lost) with the one wallet, funded once; the key with another request is a 400", async () => {
    const before = await walletCount()
    const body = { label: "keyed", autoFund: true, fundLamports: 7_000_000, idempotencyKey: `wallet-${Date.now()}` }
    // The first create is served; its answer is read by no one (a dropped connection, a timed-out client).
    const lost = await fetch(`${env.service.baseUrl}/api/v1/wallets`, { method: "POST", headers: { "content-type": "application/json", "x-api-key": ADMIN_KEY }, body: JSON.stringify(body) })
    expect(lost.status).toBe(201)
    await lost.body?.cancel()

    const repeated = await client().wallets.create({ body })
    expect(repeated.status).toBe(200)
    const wallet = repeated.data!
    expect(wallet).toMatchObject({ label: "keyed", status: "active" })
    expect(await walletCount()).toBe(before + 1)
    // funded by the first create only
    expect(await new Connection(env.ledger.rpcUrl, "confirmed").getBalance(new PublicKey(wallet.publicKey))).toBe(7_000_000)

    const other = await client().wallets.create({ body: { ...body, label: "another" } })
    expect(other.status).toBe(400)
    expect(other.body.error?.startsWith("idempotencyKey:"), other.body.error).toBe(true)
    expect(await walletCount()).toBe(before + 1)

    // creates racing with one key make one wallet
    const key = `wallet-race-${Date.now()}`
    const raced = await Promise.all(Array.from({ length: 6 }, () => client().wallets.create({ body: { label: "raced", idempotencyKey: key } })))
    expect(raced.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 200, 200, 201])
    expect(new Set(raced.map((answer) => answer.data!.id)).size).toBe(1)
    expect(await walletCount()).toBe(before + 2)
  })

  it("gets a wallet by id and answers 404 for an unknown one", async () => {
    const created = await client().wallets.create({ body: {} })
    const got = await client().wallets.get({ params: { walletId: created.body.data.id } })
    expect(got.body.data).toEqual(created.body.data)
    const missing = await client().wallets.get({ params: { walletId: "00000000-0000-4000-8000-000000000000" } })
    expect(missing.status).toBe(404)
    expect(missing.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
    const badId = await client().wallets.get({ params: { walletId: "not-a-uuid" } })
    expect(badId.status).toBe(400)
    expect(badId.body.error).toContain("walletId")
  })

  it("lists wallets with limit and offset", async () => {
    for (let i = 0; i < 3; i++) await client().wallets.create({ body: { label: `page-${i}` } })
    const all = await client().wallets.list({ query: { limit: "100" } })
    const total = all.body.data.total as number
    expect(all.body.data.wallets).toHaveLength(total)
    const page = await client().wallets.list({ query: { limit: "2", offset: "1" } })
    expect(page.body.data).toMatchObject({ total, limit: 2, offset: 1 })
    expect(page.body.data.wallets.map((w: { id: string }) => w.id)).toEqual(
      all.body.data.wallets.slice(1, 3).map((w: { id: string }) => w.id)
    )
    const defaults = await client().wallets.list({})
    expect(defaults.body.data).toMatchObject({ limit: 50, offset: 0 })
    for (const bad of ["limit=0", "limit=101", "offset=-1", "limit=abc"]) {
      const refused = await api(env.service.baseUrl, "GET", `/api/v1/wallets?${bad}`)
      expect(refused.status).toBe(400)
      expect(refused.body.error).toMatch(/^(limit|offset)/)
    }
  })

  it.each([
    [{ label: "" }, "label"],
    [{ label: "x".repeat(129) }, "label"],
    [{ autoFund: "yes" }, "autoFund"],
    [{ autoFund: true, fundLamports: 10_000_000_001 }, "fundLamports"],
    [{ autoFund: true, fundLamports: -5 }, "fundLamports"],
    [{ autoFund: true, fundLamports: 1.5 }, "fundLamports"]
  ])("refuses %j with a 400 naming %s and creates nothing", async (body, field) => {
    const before = await walletCount()
    const refused = await api(env.service.baseUrl, "POST", "/api/v1/wallets", body)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
    expect(refused.body.error).toContain(field)
    expect(await walletCount()).toBe(before)
  })

  it("refuses a body over 1 MiB with a 400 envelope and creates nothing", async () => {
    const before = await walletCount()
    const refused = await api(env.service.baseUrl, "POST", "/api/v1/wallets", JSON.stringify({ label: "x", padding: "y".repeat(1_100_000) }))
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
    expect(refused.body.error).toContain("1 MiB")
    expect(await walletCount()).toBe(before)
  })

  it("refuses malformed JSON with a 400 envelope", async () => {
    const refused = await api(env.service.baseUrl, "POST", "/api/v1/wallets", "{not json")
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR" })
    expect(refused.body.error).toContain("malformed JSON")
  })
})
