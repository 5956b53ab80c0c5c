/**
 * The operator console (issue 20) in a real browser (Debian's chromium via playwright-core) against the
 * whole service on the real local ledger: log in, watch a transfer reach `confirmed` live with every
 * stage and its proof verified in the browser, approve and reject at the gate, a gap in the stream read again
 * (a transaction settled elsewhere while the service's LISTEN connection was cut), pause an agent and see
 * its actor go, a wrong key's 401 message, a key without a scope. A screenshot of each view is written
 * to test-artifacts/console/.
 */
import { SqlClient } from "@effect/sql"
import { Keypair } from "@solana/web3.js"
import { Effect } from "effect"
import pg from "pg"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildConsole } from "../../console/build.js"
import { LISTENER_PING } from "../../src/db/notifications.js"
import { canonicalJson, sha256Hex } from "../../src/pipeline/proof.js"
import { defined } from "../support/defined.js"
import { startTestLedger } from "../support/ledger.js"
import { makeClient } from "../support/client.js"
import { ADMIN_KEY, api, type RunningService, startService } from "../support/service.js"
import { createWallet, submit, waitSettled } from "../support/transactions.js"
import { type Browser, launchBrowser, screenshot } from "./browser.js"

const WALLETS_ONLY_KEY = "console-wallets-only-key"
const SPEND_STAGES = ["pending", "simulating", "policy_eval", "signing", "submitting", "confirmed"]

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService
let browser: Browser
let page: Page
let wallet: { id: string; publicKey: string }
/** The transfer the console started (first test), for the audit filter. */
let transferId: string

const destination = () => Keypair.generate().publicKey.toBase58()
const consoleUrl = () => `${service.baseUrl}/console/`

const logIn = async (key: string) => {
  await page.goto(consoleUrl())
  await page.fill('input[name="apiKey"]', key)
  await page.click('button[type="submit"]')
}

const openView = async (view: string) => {
  await page.click(`nav a[data-view="${view}"]`)
  await page.waitForSelector(`nav a.active[data-view="${view}"]`)
}

beforeAll(async () => {
  // The build (when stale), the ledger and the browser do not need each other: started together. All
  // settle before a failure is reported, so afterAll closes whatever did start.
  const settled = await Promise.allSettled([
    buildConsole(),
    startTestLedger().then((started) => void (ledger = started)),
    launchBrowser().then((launched) => void (browser = launched))
  ])
  const failed = settled.find((result) => result.status === "rejected")
  if (failed !== undefined) throw failed.reason
  service = await startService({
    rpcUrl: ledger.rpcUrl,
    env: { API_GATEWAY_API_KEYS: `${ADMIN_KEY}:*:all;${WALLETS_ONLY_KEY}:*:wallets`, AGENT_LOOP_INTERVAL_MS: "300" }
  })
  ;[wallet, page] = await Promise.all([createWallet(service.baseUrl, 5_000_000_000), browser.newPage()])
  // A build, a ledger, the service and a browser: generous on a loaded machine.
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await service?.stop()
  await ledger?.close()
})

describe("operator console", () => {
  it("serves the page without a key, from its own origin only", async () => {
    const response = await fetch(consoleUrl())
    expect(response.status).toBe(200)
    expect(response.headers.get("content-type")).toContain("text/html")
    expect(response.headers.get("content-security-policy")).toContain("default-src 'self'")
    const html = await response.text()
    expect(html).not.toMatch(/https?:\/\//)
    // The data is not public: the API still needs the key.
    expect((await makeClient(service.baseUrl, {}).wallets.list({})).status).toBe(401)
    // Only the built folder is served: a path that climbs out of it, or a missing asset, is a 404 envelope.
    for (const path of ["/console/%2e%2e/%2e%2e/package.json", "/console/..%2f..%2fpackage.json", "/console/assets/missing.js"]) {
      const outside = await api(service.baseUrl, "GET", path, undefined, {})
      expect(outside.status).toBe(404)
      expect(outside.body.status).toBe("failure")
    }
  })

  it("a wrong key shows the 401 message and logs nobody in", async () => {
    await logIn("not-a-key")
    const error = page.getByTestId("login-error")
    await error.waitFor()
    expect(await error.textContent()).toBe("Invalid API key")
    expect(await page.locator("nav").count()).toBe(0)
    await screenshot(page, "login-401")
  })

  it("a transfer started from the console reaches confirmed live, every stage shown, its proof verified in the browser", async () => {
    await logIn(ADMIN_KEY)
    await page.waitForSelector('nav a[data-view="transactions"]')
    await page.getByTestId("stream-state").filter({ hasText: "stream live" }).waitFor()
    await page.waitForSelector(`select[name="walletId"] option[value="${wallet.id}"]`, { state: "attached" })
    await page.selectOption('select[name="walletId"]', wallet.id)
    // A bad destination: the API's 400 envelope message is what the page shows, and nothing starts.
    await page.fill('input[name="destination"]', "not-an-address")
    await page.click('form[data-testid="transfer-form"] button[type="submit"]')
    const refused = page.locator('form[data-testid="transfer-form"] [data-testid="api-error"]')
    await refused.waitFor()
    expect(await refused.textContent()).toContain("destination")
    expect(await page.locator("tr[data-tx]").count()).toBe(0)

    await page.fill('input[name="destination"]', destination())
    await page.fill('input[name="lamports"]', "1000000")
    await page.click('form[data-testid="transfer-form"] button[type="submit"]')

    const confirmed = page.locator(`tr[data-status="confirmed"][data-tx]`).first()
    await confirmed.waitFor({ timeout: 30_000 })
    const txId = (await confirmed.getAttribute("data-tx"))!
    transferId = txId
    // Every stage reached, in the pipeline's order, as the stream announced them.
    const stages = (await confirmed.locator("td.stages").getAttribute("data-stages"))!.split(",")
    expect(stages).toEqual(SPEND_STAGES)
    // The service agrees with what the page shows.
    expect((await makeClient(service.baseUrl).transactions.get({ params: { txId } })).body.data.status).toBe("confirmed")
    await screenshot(page, "transactions")

    await confirmed.locator("a").first().click()
    await page.locator('[data-testid="proof"][data-verified="true"]').waitFor({ timeout: 15_000 })
    const timeline = await page.locator('[data-testid="timeline"] li').evaluateAll((items) => items.map((item) => item.getAttribute("data-status")))
    expect(timeline).toEqual(SPEND_STAGES)
    expect(await page.getByTestId("policy-decision").textContent()).toContain("allow")
    expect(await page.getByTestId("delta-guard").textContent()).toContain("ok")
    await screenshot(page, "transaction-detail")
  })

  it("the approvals inbox shows each preview (not raw JSON), asks for confirmation, and shows the approved one confirm; reject another with a reason", async () => {
    const policy = await makeClient(service.baseUrl).policies.create({ body: {
      walletId: wallet.id,
      name: "approve large transfers",
      rules: [{ type: "spending_limit", requireApprovalAboveLamports: 5_000_000 }]
    } })
    expect(policy.status).toBe(201)
    // A second version, so the policies view has something to diff.
    await makeClient(service.baseUrl).policies.update({ params: { policyId: policy.body.data.id }, body: {
      rules: [{ type: "spending_limit", requireApprovalAboveLamports: 5_000_000, maxLamportsPerTx: 3_000_000_000 }]
    } })
    const targets = [destination(), destination()]
    const gated = await Promise.all(
      targets.map(async (to) => {
        const created = await submit(service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: to, lamports: 10_000_000 } }, undefined, "?waitMs=15000")
        expect(created.status).toBe(202)
        return created.body.data.id as string
      })
    )
    const [toApprove, toReject] = gated

    await openView("approvals")
    const approveCard = page.locator(`article[data-tx="${toApprove}"]`)
    const rejectCard = page.locator(`article[data-tx="${toReject}"]`)
    await approveCard.waitFor()
    await rejectCard.waitFor()
    // what it does in words, the balance change, who receives value, the fee, the reasons, the approvals so far
    expect(await approveCard.getByTestId("summary").textContent()).toContain(`Transfer 0.01 SOL from this wallet to ${targets[0]}`)
    expect(await approveCard.locator('[data-testid="balance-changes"] li[data-asset="SOL"]').textContent()).toMatch(/^-0\.0100\d* SOL$/)
    expect(await approveCard.getByTestId("counterparties").textContent()).toContain(targets[0])
    expect(await approveCard.getByTestId("fee").textContent()).toMatch(/^0\.0000\d+ SOL \(paid by the wallet\)$/)
    expect(await approveCard.getByTestId("reasons").textContent()).toMatch(/approval/i)
    expect(await approveCard.getByTestId("quorum").textContent()).toBe("0 of 1")
    expect(await approveCard.locator("pre.json").count()).toBe(0)
    expect(await approveCard.textContent()).toMatch(/expires in 23 h \d+ min/)
    await screenshot(page, "approvals")

    // Approve asks first; nothing is sent until confirmed
    await approveCard.locator('button[data-action="approve"]').click()
    await approveCard.getByTestId("confirm").waitFor()
    expect(await approveCard.getByTestId("confirm").textContent()).toContain(`Approve Transfer 0.01 SOL from this wallet to ${targets[0]}`)
    expect((await makeClient(service.baseUrl).transactions.get({ params: { txId: toApprove } })).data?.status).toBe("approval_gate")
    await screenshot(page, "approval-confirm")
    await approveCard.locator('button[data-action="confirm-approve"]').click()
    await approveCard.waitFor({ state: "detached" })
    // what happened to it afterwards stays in view
    await page.locator(`[data-testid="decided"] li[data-decided="${toApprove}"][data-outcome="confirmed"]`).waitFor({ timeout: 30_000 })

    await rejectCard.locator('input[name="reason"]').fill("destination not on the allowlist we agreed")
    await rejectCard.locator('button[data-action="reject"]').click()
    await rejectCard.waitFor({ state: "detached" })
    await page.locator(`[data-testid="decided"] li[data-decided="${toReject}"][data-outcome="failed"]`).waitFor()

    // The approved one confirmed, live on its detail page, with the preview it was approved on.
    await page.goto(`${consoleUrl()}#/transactions/${toApprove}`)
    await page.locator('[data-testid="timeline"] li[data-status="confirmed"]').waitFor({ timeout: 30_000 })
    expect(await page.locator('[data-testid="timeline"] li[data-status="approval_gate"]').count()).toBe(1)
    expect(await page.getByTestId("summary").textContent()).toContain(targets[0])

    const rejected = await waitSettled(service.baseUrl, toReject)
    expect(rejected.body.data.status).toBe("failed")
    expect(rejected.body.data.approval).toMatchObject({ status: "rejected", reason: "destination not on the allowlist we agreed" })
    await page.goto(`${consoleUrl()}#/transactions/${toReject}`)
    await page.getByText("approval rejected: destination not on the allowlist we agreed").waitFor()
  })

  it("a preview that changed since it was shown is refused (409) and the current one shown; a failure after approval is visible", async () => {
    const small = await createWallet(service.baseUrl, 50_000_000)
    expect((await makeClient(service.baseUrl).policies.create({ body: { walletId: small.id, name: "approve all", rules: [{ type: "spending_limit", requireApprovalAboveLamports: 0 }] } })).status).toBe(201)
    const gate = async (lamports: number) => {
      const created = await submit(service.baseUrl, { walletId: small.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports } }, undefined, "?waitMs=15000")
      expect(created.status).toBe(202)
      return created.body.data.id as string
    }
    const [first, second] = [await gate(40_000_000), await gate(40_000_000)]
    // (logged in already when the file's earlier tests ran; on its own it logs in)
    await page.goto(consoleUrl())
    await page.waitForSelector('nav a[data-view], input[name="apiKey"]')
    if ((await page.locator('input[name="apiKey"]').count()) > 0) await logIn(ADMIN_KEY)
    await openView("approvals")
    const card = page.locator(`article[data-tx="${first}"]`)
    await card.waitFor()
    await card.locator('button[data-action="approve"]').click()
    await card.getByTestId("confirm").waitFor()

    // Meanwhile its preview changes (written as the gate writes a new round's: a new preview and its hash)
    const record = await service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql<{ approval: { preview: Record<string, unknown> } }>`SELECT approval FROM transactions WHERE id = ${first}`))
    const changed = { ...defined(record[0], "row").approval.preview, summary: "Transfer 0.04 SOL from this wallet (changed while you looked)" }
    await service.runtime.runPromise(Effect.flatMap(SqlClient.SqlClient, (sql) => sql`
      UPDATE transactions SET approval = approval || ${JSON.stringify({ preview: changed, previewHash: sha256Hex(canonicalJson(changed)) })}::jsonb WHERE id = ${first}`))
    await card.locator('button[data-action="confirm-approve"]').click()
    await card.getByText(/^previewHash: the preview of transaction .* changed since it was shown/).waitFor()
    await card.getByText("changed while you looked").first().waitFor()
    expect((await makeClient(service.baseUrl).transactions.get({ params: { txId: first } })).data?.approval?.approvals).toEqual([])
    await screenshot(page, "approval-preview-changed")

    // The second one is approved (elsewhere) and spends what the first needed: approved now, the first cannot run,
    // and the console says so instead of dropping it.
    expect((await makeClient(service.baseUrl).transactions.approve({ params: { txId: second } })).status).toBe(200)
    expect((await waitSettled(service.baseUrl, second)).body.data.status).toBe("confirmed")
    // (after the 409 the confirmation closed: the operator reads the new preview and opens a new one)
    expect(await card.getByTestId("confirm").count()).toBe(0)
    await card.locator('button[data-action="approve"]').click()
    await card.locator('button[data-action="confirm-approve"]').click()
    const outcome = page.locator(`[data-testid="decided"] li[data-decided="${first}"][data-outcome="failed"]`)
    await outcome.waitFor({ timeout: 30_000 })
    expect(await outcome.getByTestId("outcome").textContent()).toMatch(/^failed at build \(PIPELINE_ERROR\): simulation failed after approval/)
    await screenshot(page, "approval-failed-after")
  })

  it("after a gap in the stage stream (the LISTEN connection cut) shows the state of a transaction settled meanwhile by another process", async () => {
    const created = await submit(service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: destination(), lamports: 10_000_000 } }, undefined, "?waitMs=15000")
    expect(created.status).toBe(202)
    const txId = created.body.data.id as string
    await openView("transactions")
    await page.locator(`tr[data-tx="${txId}"][data-status="approval_gate"]`).waitFor()

    // Another process fails it (straight in SQL: no event reaches this one) while this one's LISTEN connection is cut.
    const admin = new pg.Client({ connectionString: service.database.url })
    await admin.connect()
    try {
      await admin.query("UPDATE transactions SET status = 'failed', failed_at = 'policy', error_code = 'POLICY_VIOLATION', error = 'rejected elsewhere', updated_at = now() WHERE id = $1", [txId])
      const cut = await admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND (query ILIKE 'LISTEN %' OR query = $1) AND pid <> pg_backend_pid()", [LISTENER_PING])
      expect(cut.rowCount).toBe(1)
    } finally {
      await admin.end()
    }
    await page.locator(`tr[data-tx="${txId}"][data-status="failed"]`).waitFor({ timeout: 15_000 })
    await page.getByTestId("stream-state").filter({ hasText: "stream live" }).waitFor()
  })

  it("pausing an agent from the console stops its actor", async () => {
    const created = await makeClient(service.baseUrl).agents.create({ body: {
      name: "console-agent",
      walletId: wallet.id,
      allowedIntents: ["query_balance", "transfer_sol"],
      autonomy: { enabled: true, cadenceSeconds: 1, steps: [{ id: "look", type: "query_balance", protocol: "system-program" }] }
    } })
    expect(created.status).toBe(201)
    const agentId = created.body.data.id as string
    await page.goto(`${consoleUrl()}#/agents`)
    await page.locator(`tr[data-agent="${agentId}"]`).click()
    await page.locator(`[data-agent-detail="${agentId}"] button[data-action="start"]`).click()
    await page.locator(`tr[data-agent="${agentId}"][data-status="running"]`).waitFor()
    const actorRow = page.locator(`tr[data-actor="agent:${agentId}"]`)
    await actorRow.waitFor({ timeout: 15_000 })
    expect(["running", "idle", "starting"]).toContain(await actorRow.getAttribute("data-status"))
    await screenshot(page, "agents")

    await page.locator(`[data-agent-detail="${agentId}"] button[data-action="pause"]`).click()
    await page.locator(`tr[data-agent="${agentId}"][data-status="paused"]`).waitFor()
    // The scheduler lets the actor go: its row leaves the runtime's actor list.
    await actorRow.waitFor({ state: "detached", timeout: 15_000 })
    const agent = await makeClient(service.baseUrl).agents.get({ params: { agentId } })
    expect(agent.body.data.status).toBe("paused")
  })

  it("shows wallets, policies with a version diff and a what-if, audit events and operations charts", async () => {
    await openView("wallets")
    await page.locator(`tr[data-wallet="${wallet.id}"] [data-testid="balance"]`).filter({ hasText: "SOL" }).waitFor()
    await screenshot(page, "wallets")

    await openView("policies")
    await page.locator("tr[data-policy]").first().click()
    const diff = page.getByTestId("policy-diff")
    await diff.waitFor()
    expect(await diff.locator(".added").textContent()).toContain("maxLamportsPerTx")
    await page.fill('form[data-testid="what-if"] input[name="amountLamports"]', "10000000")
    await page.click('form[data-testid="what-if"] button[type="submit"]')
    expect(await page.getByTestId("what-if-decision").textContent()).toContain("require_approval")
    await screenshot(page, "policies")

    await openView("audit")
    await page.locator('[data-testid="audit-events"] tbody tr').first().waitFor()
    await screenshot(page, "audit")
    // Filtered by the transfer's id: only its events, among them its confirmation.
    await page.fill('input[name="txId"]', transferId)
    await page.click('form.filters button[type="submit"]')
    // Wait for the filtered answer itself: the unfiltered table shown before also holds the transfer's rows.
    await page.locator(`[data-testid="audit-events"][data-answers*="txId=${transferId}"] tbody tr[data-tx="${transferId}"]`).getByText("transaction.confirmed").waitFor()
    const rowTxIds = await page.locator('[data-testid="audit-events"] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute("data-tx")))
    expect(rowTxIds.length).toBeGreaterThan(1)
    expect(new Set(rowTxIds)).toEqual(new Set([transferId]))

    await openView("operations")
    await page.locator('[data-testid="outbox-chart"] rect').first().waitFor()
    await page.locator('[data-testid="rpc-chart"] rect').first().waitFor()
    await page.locator('[data-testid="metrics-chart"] rect').first().waitFor()
    await screenshot(page, "operations")
  })

  it("issues a key, shows its secret once, and revokes it: the service refuses it at once", async () => {
    await openView("keys")
    const form = page.locator('form[data-testid="issue-key"]')
    await form.locator('input[name="tenant"]').fill("tenant-console")
    await form.locator('input[name="scopes"]').fill("wallets")
    await form.locator('input[name="label"]').fill("from the console")
    await form.locator('button[type="submit"]').click()
    const secret = (await page.getByTestId("secret").textContent()) ?? ""
    expect(secret).toMatch(/^agck_[0-9a-f]{16}_[0-9A-Za-z]{49}$/)
    expect((await makeClient(service.baseUrl, { "x-api-key": secret }).wallets.list({})).status).toBe(200)
    await screenshot(page, "keys")
    await page.getByTestId("new-secret").getByRole("button", { name: "Done" }).click()
    const id = secret.slice("agck_".length, "agck_".length + 16)
    const row = page.locator(`tr[data-key="${id}"]`)
    await row.locator('[data-action="revoke"]').click()
    await page.locator(`tr[data-key="${id}"][data-status="revoked"]`).waitFor()
    expect(await page.content()).not.toContain(secret.slice(22))
    expect((await makeClient(service.baseUrl, { "x-api-key": secret }).wallets.list({})).status).toBe(401)
  })

  it("a key without a scope sees those views disabled, naming the scope, and the others work", async () => {
    await page.click("nav button.link")
    await logIn(WALLETS_ONLY_KEY)
    await page.waitForSelector('nav a[data-view="wallets"]')
    const transactions = page.locator('nav [data-view="transactions"]')
    expect(await transactions.getAttribute("aria-disabled")).toBe("true")
    expect(await transactions.textContent()).toContain("needs scope transactions")
    expect(await page.locator('nav [data-view="agents"]').textContent()).toContain("needs scope agents")
    // The default view is one it may not see: disabled, with the envelope's message.
    expect(await page.getByTestId("needs-scope").textContent()).toContain("needs scope transactions")
    await screenshot(page, "needs-scope")
    await openView("wallets")
    await page.locator(`tr[data-wallet="${wallet.id}"]`).waitFor()
  })
})
