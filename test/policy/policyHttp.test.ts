/**
 * Policies over HTTP: create with field-level 400s, update as new versions with old ones readable,
 * versions, migrate (safe, force, dry_run), compatibility check, the wallet's policy list, evaluate,
 * and tenant isolation.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeClient } from "../support/client.js"
import { api, type RunningService, startService } from "../support/service.js"

let service: RunningService
const A = { "x-api-key": "key-a" }
const B = { "x-api-key": "key-b" }
const DEST = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU"

beforeAll(async () => {
  service = await startService({
    rpcUrl: "http://127.0.0.1:9",
    env: { API_GATEWAY_API_KEYS: "test-admin-key:*:all;key-a:tenant-a:all;key-b:tenant-b:all" }
  })
}, 60_000)
afterAll(async () => {
  await service?.stop()
})

const newWallet = async (headers?: Record<string, string>) => (await makeClient(service.baseUrl, headers).wallets.create({ body: {} })).body.data.id as string

describe("GET /api/v1/policies", () => {
  it("lists the tenant's policies, oldest first, by wallet and by active, and never another tenant's", async () => {
    const [first, second] = [await newWallet(A), await newWallet(A)]
    const a = makeClient(service.baseUrl, A)
    const p1 = (await a.policies.create({ body: { walletId: first, name: "one", rules: [] } })).body.data
    const p2 = (await a.policies.create({ body: { walletId: second, name: "two", active: false, rules: [] } })).body.data
    const p3 = (await a.policies.create({ body: { walletId: second, name: "three", rules: [] } })).body.data
    const theirs = (await makeClient(service.baseUrl, B).policies.create({ body: { walletId: await newWallet(B), name: "b", rules: [] } })).body.data

    const all = await a.policies.list({ query: {} })
    expect(all.status).toBe(200)
    expect(all.body.data).toMatchObject({ total: 3, limit: 50, offset: 0 })
    expect(all.body.data.policies.map((p) => p.id)).toEqual([p1.id, p2.id, p3.id])
    expect((await a.policies.list({ query: { walletId: second } })).body.data.policies.map((p) => p.id)).toEqual([p2.id, p3.id])
    expect((await a.policies.list({ query: { walletId: second, active: "true" } })).body.data.policies.map((p) => p.id)).toEqual([p3.id])
    expect((await a.policies.list({ query: { active: "false" } })).body.data.policies.map((p) => p.id)).toEqual([p2.id])
    const page = await a.policies.list({ query: { limit: "1", offset: "1" } })
    expect(page.body.data).toMatchObject({ total: 3, limit: 1, offset: 1, policies: [{ id: p2.id }] })
    expect((await a.policies.list({ query: { walletId: theirs.walletId } })).body.data).toMatchObject({ total: 0, policies: [] })
    const refused = await api(service.baseUrl, "GET", "/api/v1/policies?active=maybe", undefined, A)
    expect(refused.status).toBe(400)
    expect(refused.body.error).toMatch(/^active: must be true or false/)
  })
})

describe("policies over HTTP", () => {
  it("creates a policy (201, version 1, active by default) and reads it back", async () => {
    const walletId = await newWallet()
    const created = await makeClient(service.baseUrl).policies.create({ body: { walletId, name: "limits", rules: [{ type: "spending_limit", maxLamportsPerTx: 1000 }] } })
    expect(created.status).toBe(201)
    expect(created.body.data).toMatchObject({ walletId, name: "limits", version: 1, active: true, rules: [{ type: "spending_limit", maxLamportsPerTx: 1000 }] })
    const got = await makeClient(service.baseUrl).policies.get({ params: { policyId: created.body.data.id } })
    expect(got.body.data).toEqual(created.body.data)
  })

  it("answers a create sent again with its idempotencyKey (the first answer lost) with the one policy, as it stands; the key with another request is a 400", async () => {
    const walletId = await newWallet(A)
    const body = { walletId, name: "keyed", rules: [{ type: "spending_limit" as const, maxLamportsPerTx: 1000 }], idempotencyKey: `policy-${Date.now()}` }
    const policiesOf = async () => (await makeClient(service.baseUrl, A).policies.listByWallet({ params: { walletId } })).body.data.policies.map((p) => p.id)
    // The first create is served; its answer is read by no one (a dropped connection, a timed-out client).
    const lost = await fetch(`${service.baseUrl}/api/v1/policies`, { method: "POST", headers: { "content-type": "application/json", ...A }, body: JSON.stringify(body) })
    expect(lost.status).toBe(201)
    await lost.body?.cancel()

    const repeated = await makeClient(service.baseUrl, A).policies.create({ body })
    expect(repeated.status).toBe(200)
    expect(repeated.body.data).toMatchObject({ walletId, name: "keyed", version: 1 })
    expect(await policiesOf()).toEqual([repeated.body.data.id])
    // updated since: the repeat answers the policy as it stands
    await makeClient(service.baseUrl, A).policies.update({ params: { policyId: repeated.body.data.id }, body: { name: "renamed" } })
    expect((await makeClient(service.baseUrl, A).policies.create({ body })).body.data).toMatchObject({ id: repeated.body.data.id, name: "renamed", version: 2 })

    const other = await makeClient(service.baseUrl, A).policies.create({ body: { ...body, rules: [{ type: "spending_limit" as const, maxLamportsPerTx: 5000 }] } })
    expect(other.status).toBe(400)
    expect(other.body.error?.startsWith("idempotencyKey:"), other.body.error).toBe(true)
    expect(await policiesOf()).toEqual([repeated.body.data.id])
    // another tenant's key of the same name is its own
    const theirs = await makeClient(service.baseUrl, B).policies.create({ body: { ...body, walletId: await newWallet(B) } })
    expect(theirs.status).toBe(201)
  })

  it("answers 400 naming the rule and field, and stores nothing", async () => {
    const walletId = await newWallet()
    const cases: Array<[unknown, string]> = [
      [[{ type: "max_slippage", maxBps: 10_001 }], "rules[0].maxBps"],
      [[{ type: "spending_limit" }, { type: "rate_limit", maxTx: 1 }], "rules[1].windowSeconds"],
      [[{ type: "no_such_rule" }], "rules[0].type"],
      [[{ type: "spending_limit", maxLamportPerTx: 5 }], "rules[0]"]
    ]
    for (const [rules, field] of cases) {
      const refused = await api(service.baseUrl, "POST", "/api/v1/policies", { walletId, name: "bad", rules })
      expect(refused.status).toBe(400)
      expect(refused.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", failedAt: "validation" })
      expect(refused.body.error).toContain(field)
    }
    const missingName = await api(service.baseUrl, "POST", "/api/v1/policies", { walletId, rules: [] })
    expect(missingName.status).toBe(400)
    expect(missingName.body.error).toContain("name")
    const listed = await makeClient(service.baseUrl).policies.listByWallet({ params: { walletId } })
    expect(listed.body.data.total).toBe(0)
    const unknownWallet = await makeClient(service.baseUrl).policies.create({ body: { walletId: "00000000-0000-4000-8000-000000000000", name: "x", rules: [] } })
    expect(unknownWallet.status).toBe(404)
  })

  it("creates a new version on each update and keeps earlier versions readable", async () => {
    const walletId = await newWallet()
    const v1 = (await makeClient(service.baseUrl).policies.create({ body: { walletId, name: "p", rules: [{ type: "max_slippage", maxBps: 100 }] } })).body.data
    const v2 = await makeClient(service.baseUrl).policies.update({ params: { policyId: v1.id }, body: { rules: [{ type: "max_slippage", maxBps: 50 }] } })
    expect(v2.body.data).toMatchObject({ id: v1.id, version: 2, name: "p", rules: [{ type: "max_slippage", maxBps: 50 }] })
    const v3 = await makeClient(service.baseUrl).policies.update({ params: { policyId: v1.id }, body: { name: "renamed", active: false } })
    expect(v3.body.data).toMatchObject({ version: 3, name: "renamed", active: false, rules: [{ type: "max_slippage", maxBps: 50 }] })
    const versions = await makeClient(service.baseUrl).policies.versions({ params: { policyId: v1.id } })
    expect(versions.body.data).toMatchObject({ total: 3, limit: 50, offset: 0 })
    expect(versions.body.data.versions.map((v: { version: number }) => v.version)).toEqual([1, 2, 3])
    const first = await makeClient(service.baseUrl).policies.version({ params: { policyId: v1.id, version: "1" } })
    expect(first.body.data).toMatchObject({ version: 1, name: "p", active: true, rules: [{ type: "max_slippage", maxBps: 100 }] })
    expect((await makeClient(service.baseUrl).policies.version({ params: { policyId: v1.id, version: "9" } })).status).toBe(404)
    expect((await makeClient(service.baseUrl).policies.version({ params: { policyId: v1.id, version: "zero" } })).body.error).toContain("version")
    const badUpdate = await makeClient(service.baseUrl).policies.update({ params: { policyId: v1.id }, body: { rules: [{ type: "max_slippage", maxBps: -1 }] } })
    expect(badUpdate.status).toBe(400)
    expect(badUpdate.body.error).toContain("rules[0].maxBps")
    expect((await makeClient(service.baseUrl).policies.get({ params: { policyId: v1.id } })).body.data.version).toBe(3)
  })

  it("migrates: dry_run changes nothing, safe refuses a less restrictive target, force applies it as a new version", async () => {
    const walletId = await newWallet()
    const id = (await makeClient(service.baseUrl).policies.create({ body: { walletId, name: "m", rules: [{ type: "max_slippage", maxBps: 300 }] } })).body.data.id
    await makeClient(service.baseUrl).policies.update({ params: { policyId: id }, body: { rules: [{ type: "max_slippage", maxBps: 100 }] } })

    const dry = await makeClient(service.baseUrl).policies.migrate({ params: { policyId: id }, body: { targetVersion: 1, mode: "dry_run" } })
    expect(dry.status).toBe(200)
    expect(dry.body.data).toMatchObject({ applied: false, mode: "dry_run", fromVersion: 2, targetVersion: 1, moreRestrictiveOrEqual: false })
    expect(dry.body.data.differences.length).toBeGreaterThan(0)

    const safe = await makeClient(service.baseUrl).policies.migrate({ params: { policyId: id }, body: { targetVersion: 1 } })
    expect(safe.status).toBe(400)
    expect(safe.body).toMatchObject({ status: "failure", errorCode: "VALIDATION_ERROR", data: { applied: false, mode: "safe" } })
    expect((await makeClient(service.baseUrl).policies.get({ params: { policyId: id } })).body.data.version).toBe(2)

    const forced = await makeClient(service.baseUrl).policies.migrate({ params: { policyId: id }, body: { targetVersion: 1, mode: "force" } })
    expect(forced.body.data).toMatchObject({ applied: true, policy: { version: 3, rules: [{ type: "max_slippage", maxBps: 300 }] } })

    const safeTighter = await makeClient(service.baseUrl).policies.migrate({ params: { policyId: id }, body: { targetVersion: 2, mode: "safe" } })
    expect(safeTighter.body.data).toMatchObject({ applied: true, moreRestrictiveOrEqual: true, policy: { version: 4, rules: [{ type: "max_slippage", maxBps: 100 }] } })
    const versions = (await makeClient(service.baseUrl).policies.versions({ params: { policyId: id } })).body.data.versions
    expect(versions.map((v) => v.rules[0])).toEqual([300, 100, 300, 100].map((maxBps) => expect.objectContaining({ maxBps })))

    // To the version it already is: nothing changed, no new version, in every mode.
    for (const mode of ["safe", "force", "dry_run"] as const) {
      const same = await makeClient(service.baseUrl).policies.migrate({ params: { policyId: id }, body: { targetVersion: 4, mode } })
      expect(same.status).toBe(200)
      expect(same.body).toMatchObject({ status: "success", errorCode: null })
      expect(same.body.data).toMatchObject({
        applied: false, unchanged: true, fromVersion: 4, targetVersion: 4, differences: [], message: "policy is already at version 4: nothing changed",
        policy: { version: 4 }
      })
    }
    expect((await makeClient(service.baseUrl).policies.versions({ params: { policyId: id } })).body.data.versions).toHaveLength(4)
    expect((await makeClient(service.baseUrl).policies.get({ params: { policyId: id } })).body.data.version).toBe(4)

    const badMode = await api(service.baseUrl, "POST", `/api/v1/policies/${id}/migrate`, { targetVersion: 1, mode: "sometimes" })
    expect(badMode.status).toBe(400)
    expect(badMode.body.error).toContain("mode")
  })

  it("checks compatibility: errors name fields, warnings flag rules that do little", async () => {
    const checked = await makeClient(service.baseUrl).policies.compatibilityCheck({ body: {
      rules: [{ type: "address_allowlist", addresses: [] }, { type: "max_slippage", maxBps: 20_000 }]
    } })
    expect(checked.body.data.compatible).toBe(false)
    expect(checked.body.data.errors.join(" ")).toContain("rules[1].maxBps")
    expect(checked.body.data.warnings.length).toBeGreaterThan(0)
    const fine = await makeClient(service.baseUrl).policies.compatibilityCheck({ body: { rules: [{ type: "max_slippage", maxBps: 100 }] } })
    expect(fine.body.data).toEqual({ compatible: true, warnings: [], errors: [] })
  })

  it("lists a wallet's policies with limit and offset", async () => {
    const walletId = await newWallet()
    for (let i = 0; i < 3; i++) await makeClient(service.baseUrl).policies.create({ body: { walletId, name: `p${i}`, rules: [] } })
    const page = await makeClient(service.baseUrl).policies.listByWallet({ params: { walletId }, query: { limit: 2, offset: 1 } })
    expect(page.body.data).toMatchObject({ total: 3, limit: 2, offset: 1 })
    expect(page.body.data.policies.map((p) => p.name)).toEqual(["p1", "p2"])
    expect((await api(service.baseUrl, "GET", `/api/v1/wallets/${walletId}/policies?limit=101`)).status).toBe(400)
  })

  it("evaluates what-if decisions without counting them", async () => {
    const walletId = await newWallet()
    await makeClient(service.baseUrl).policies.create({ body: {
      walletId,
      name: "e",
      rules: [{ type: "spending_limit", maxLamportsPerDay: 1000, requireApprovalAboveLamports: 500 }, { type: "address_blocklist", addresses: [DEST] }]
    } })
    const body = { walletId, type: "transfer_sol", protocol: "system-program", amountLamports: 600 }
    const approval = await makeClient(service.baseUrl).policies.evaluate({ body })
    expect(approval.body.data).toMatchObject({ decision: "require_approval", riskTier: "low" })
    for (let i = 0; i < 3; i++) expect((await makeClient(service.baseUrl).policies.evaluate({ body: { ...body, amountLamports: 400 } })).body.data.decision).toBe("allow")
    const blocked = await makeClient(service.baseUrl).policies.evaluate({ body: { ...body, destination: DEST, amountLamports: 1 } })
    expect(blocked.body.data.decision).toBe("deny")
    expect(blocked.body.data.reasons.join(" ")).toContain("address_blocklist")
    // The engine-only fields are refused by name, not ignored: a caller's own tier, instant or agent would
    // preview a transaction that cannot happen (and audit it in another agent's name). Sent as variables:
    // the declared body has no such fields.
    for (const [field, value] of [["riskTierHint", "low"], ["timestamp", "2030-01-01T00:00:00Z"], ["agentId", "00000000-0000-4000-8000-000000000001"]] as const) {
      const engineOnly = { ...body, [field]: value }
      const refused = await makeClient(service.baseUrl).policies.evaluate({ body: engineOnly })
      expect(refused.status).toBe(400)
      expect(refused.body.error).toContain(field)
    }
    // The spec's tier deduction still applies to the declared fields: a flash loan bundle is critical.
    const critical = await makeClient(service.baseUrl).policies.evaluate({ body: { ...body, type: "flash_loan_bundle", amountLamports: 1 } })
    expect(critical.body.data).toMatchObject({ decision: "require_approval", riskTier: "critical" })
    const bad = await makeClient(service.baseUrl).policies.evaluate({ body: { ...body, slippageBps: 10_001 } })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toContain("slippageBps")
  })

  it("keeps one tenant's policies invisible to another", async () => {
    const walletA = await newWallet(A)
    const policy = (await makeClient(service.baseUrl, A).policies.create({ body: { walletId: walletA, name: "a", rules: [] } })).body.data
    expect((await makeClient(service.baseUrl, B).policies.get({ params: { policyId: policy.id } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).policies.update({ params: { policyId: policy.id }, body: { name: "stolen" } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).policies.versions({ params: { policyId: policy.id } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).policies.version({ params: { policyId: policy.id, version: "1" } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).policies.migrate({ params: { policyId: policy.id }, body: { targetVersion: 1 } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).policies.listByWallet({ params: { walletId: walletA } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).policies.create({ body: { walletId: walletA, name: "b", rules: [] } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, B).policies.evaluate({ body: { walletId: walletA, type: "transfer_sol", protocol: "system-program" } })).status).toBe(404)
    expect((await makeClient(service.baseUrl, A).policies.get({ params: { policyId: policy.id } })).body.data.version).toBe(1)
  })
})
