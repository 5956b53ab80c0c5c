/**
 * The kill switch in the console (issue 34 item 3), in a real browser against the whole service on the local
 * ledger: one Freeze button per wallet and agent that asks for a reason and a confirmation, the frozen state
 * on the wallets and agents views, a tenant freeze from the operations view shown as a banner on every view,
 * and unfreezing from the list. Screenshots go to test-artifacts/console/.
 */
import { Keypair } from "@solana/web3.js"
import type { Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { buildConsole } from "../../console/build.js"
import { dataOf, makeClient } from "../support/client.js"
import { startTestLedger } from "../support/ledger.js"
import { ADMIN_KEY, type RunningService, startService } from "../support/service.js"
import { createWallet, submit } from "../support/transactions.js"
import { type Browser, launchBrowser, screenshot } from "./browser.js"

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let service: RunningService
let browser: Browser
let page: Page

beforeAll(async () => {
  const settled = await Promise.allSettled([
    buildConsole(),
    startTestLedger().then((started) => void (ledger = started)),
    launchBrowser().then((launched) => void (browser = launched))
  ])
  const failed = settled.find((result) => result.status === "rejected")
  if (failed !== undefined) throw failed.reason
  service = await startService({ rpcUrl: ledger.rpcUrl })
  page = await browser.newPage()
}, 240_000)

afterAll(async () => {
  await browser?.close()
  await service?.stop()
  await ledger?.close()
})

const openView = async (view: string) => {
  await page.click(`nav a[data-view="${view}"]`)
  await page.waitForSelector(`nav a.active[data-view="${view}"]`)
}

const transfer = (walletId: string) =>
  submit(service.baseUrl, { walletId, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 1_000_000 } })

describe("the kill switch in the console", () => {
  it("freezes a wallet after a confirmation, shows it frozen on the wallets and agents views, and unfreezes it", async () => {
    const client = makeClient(service.baseUrl)
    const wallet = await createWallet(service.baseUrl, 1_000_000_000)
    const agent = dataOf(await client.agents.create({ body: { name: "console trader", walletId: wallet.id, budgetLamports: 10_000_000 } }))
    await page.goto(`${service.baseUrl}/console/`)
    await page.fill('input[name="apiKey"]', ADMIN_KEY)
    await page.click('button[type="submit"]')
    await openView("wallets")
    const row = page.locator(`tr[data-wallet="${wallet.id}"]`)
    await row.locator('button[data-action="freeze"]').click()
    // The confirmation: nothing happens until a reason is given and the freeze confirmed.
    const confirm = row.locator('button[data-action="confirm-freeze"]')
    expect(await confirm.isDisabled()).toBe(true)
    expect(dataOf(await client.risk.listFreezes({ query: {} })).total).toBe(0)
    await row.locator('input[name="freezeReason"]').fill("console drill")
    await confirm.click()
    await row.locator(".badge-frozen").waitFor()
    const freezes = dataOf(await client.risk.listFreezes({ query: {} })).freezes
    expect(freezes).toMatchObject([{ scope: "wallet", targetId: wallet.id, reason: "console drill", active: true }])
    expect((await transfer(wallet.id)).status).toBe(403)
    await screenshot(page, "wallet-frozen")

    // The agent acting through the frozen wallet is shown frozen too.
    await openView("agents")
    await page.locator(`tr[data-agent="${agent.id}"] .badge-frozen`).waitFor()
    await screenshot(page, "agent-frozen")

    await openView("wallets")
    await row.locator('button[data-action="unfreeze"]').click()
    await row.locator('button[data-action="freeze"]').waitFor()
    expect(dataOf(await client.risk.listFreezes({ query: {} })).total).toBe(0)
    expect((await transfer(wallet.id)).status).toBe(201)
  }, 120_000)

  it("freezes a tenant from the operations view: a banner on every view until it is lifted from the list", async () => {
    await openView("operations")
    await page.fill('input[name="freezeTenant"]', "default")
    const killSwitch = page.getByTestId("kill-switch")
    await killSwitch.locator('button[data-action="freeze"]').click()
    await killSwitch.locator('input[name="freezeReason"]').fill("tenant incident")
    await killSwitch.locator('button[data-action="confirm-freeze"]').click()
    await page.getByTestId("frozen-banner").waitFor()
    expect(await page.getByTestId("frozen-banner").textContent()).toContain("default")
    for (const view of ["transactions", "wallets", "agents"]) {
      await openView(view)
      expect(await page.getByTestId("frozen-banner").isVisible()).toBe(true)
    }
    await screenshot(page, "tenant-frozen")
    await openView("operations")
    await page.locator('[data-testid="freezes"] button[data-action="unfreeze"]').click()
    await page.getByTestId("frozen-banner").waitFor({ state: "detached" })
    expect(dataOf(await makeClient(service.baseUrl).risk.listFreezes({ query: {} })).total).toBe(0)
  }, 60_000)

  it("shows a backtest's result, a shadow policy's disagreements, and a decision's trace", async () => {
    const client = makeClient(service.baseUrl)
    const wallet = await createWallet(service.baseUrl, 1_000_000_000)
    await client.wallets.list({})
    const shadow = dataOf(await client.policies.create({ body: { walletId: wallet.id, name: "console shadow", shadow: true, rules: [{ type: "spending_limit", maxLamportsPerTx: 2_000_000 }] } }))
    const big = await submit(service.baseUrl, { walletId: wallet.id, type: "transfer_sol", protocol: "system-program", intent: { destination: Keypair.generate().publicKey.toBase58(), lamports: 5_000_000 } }, undefined, "?waitMs=10000")
    expect(big.data?.status).toBe("confirmed")
    await openView("policies")
    await page.selectOption('select[name="wallet"]', wallet.id)
    await page.locator(`[data-testid="shadow-disagreements"] tr[data-disagreement="${big.data?.id}"]`).waitFor()
    await page.selectOption('select[name="backtestPolicy"]', shadow.id)
    await page.fill('input[name="backtestDays"]', "1")
    await page.click('form[data-testid="backtest-form"] button[type="submit"]')
    const summary = page.getByTestId("backtest-summary")
    await summary.waitFor()
    expect(await summary.textContent()).toContain("1 transactions: 0 allowed, 1 denied")
    expect(await page.locator('[data-testid="backtest-result"] tr[data-changed="true"]').count()).toBe(1)
    await screenshot(page, "backtest-and-shadow")
    await page.goto(`${service.baseUrl}/console/#/transactions/${big.data?.id}`)
    await page.locator('[data-testid="shadow-verdicts"] li[data-agrees="false"]').waitFor()
    expect(await page.locator('[data-testid="decision-trace"] tr').count()).toBeGreaterThan(3)
    await screenshot(page, "decision-trace")
  }, 60_000)
})
