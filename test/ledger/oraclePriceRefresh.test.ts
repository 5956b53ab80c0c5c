/**
 * The local ledger keeps its oracle feeds live (docs/decisions/oracle.md): it posts each seeded feed's price again
 * at the chain's clock, so a dev service's price-age bound never finds the seeded prices stale. A post with an
 * explicit publishTime stalls that feed there (the refresher leaves it); a post without one makes it live again.
 * Read as the service reads it: the PriceUpdateV2 accounts and the Clock sysvar over JSON-RPC.
 */
import { Connection, PublicKey, SYSVAR_CLOCK_PUBKEY } from "@solana/web3.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { feedBySymbol } from "../../src/protocols/oracle/feeds.js"
import { decodePriceUpdate, feedAccountAddress } from "../../src/protocols/oracle/priceUpdate.js"
import { startTestLedger } from "../support/ledger.js"
import { rawRpc } from "./helpers.js"

const REFRESH_MS = 200
const SOL_FEED = feedBySymbol("SOL")!.feedId
const USDC_FEED = feedBySymbol("USDC")!.feedId

let ledger: Awaited<ReturnType<typeof startTestLedger>>
let connection: Connection

beforeAll(async () => {
  ledger = await startTestLedger({ amm: true, priceRefreshMs: REFRESH_MS })
  connection = new Connection(ledger.rpcUrl, "confirmed")
})
afterAll(async () => {
  await ledger?.close()
})

const update = async (feedId: string) => {
  const account = await connection.getAccountInfo(new PublicKey(feedAccountAddress(feedId)))
  const decoded = account === null ? null : decodePriceUpdate(account.data)
  if (decoded === null) throw new Error(`no price update for feed ${feedId}`)
  return decoded
}
const chainTime = async () => (await connection.getAccountInfo(SYSVAR_CLOCK_PUBKEY))!.data.readBigInt64LE(32)
const post = (params: unknown[]) => rawRpc<{ account: string }>(ledger.rpcUrl, { jsonrpc: "2.0", id: 1, method: "setPythPriceUpdate", params })
/** Waits until the refresher has run a few times (postedSlot moves with the ledger's slots, 400 ms each). */
const afterRefreshes = () => new Promise((resolve) => setTimeout(resolve, 5 * REFRESH_MS + 800))

describe("the local ledger's oracle refresher", () => {
  it("posts the seeded prices again at the chain's clock, leaves a feed stalled at an explicit publishTime, and resumes it on a live post", async () => {
    const seeded = await update(USDC_FEED)
    expect(Number((await chainTime()) - seeded.publishTime)).toBeLessThanOrEqual(2)
    await afterRefreshes()
    const refreshed = await update(USDC_FEED)
    expect(refreshed.postedSlot).toBeGreaterThan(seeded.postedSlot)
    expect(refreshed.price).toBe(seeded.price)

    const hourAgo = (await chainTime()) - 3_600n
    expect((await post([SOL_FEED, "12000000000", -8, Number(hourAgo)])).error).toBeUndefined()
    await afterRefreshes()
    const stalled = await update(SOL_FEED)
    expect(stalled).toMatchObject({ price: 12_000_000_000n, publishTime: hourAgo })
    // the other feeds stay live meanwhile
    expect((await update(USDC_FEED)).postedSlot).toBeGreaterThan(refreshed.postedSlot)

    expect((await post([SOL_FEED, "12000000000", -8])).error).toBeUndefined()
    const live = await update(SOL_FEED)
    expect(Number((await chainTime()) - live.publishTime)).toBeLessThanOrEqual(2)
    await afterRefreshes()
    expect((await update(SOL_FEED)).postedSlot).toBeGreaterThan(live.postedSlot)
  })

  it("refuses a publishTime that is not a non-negative integer, and changes nothing", async () => {
    const before = await update(USDC_FEED)
    for (const bad of [-1, 1.5, "2026-01-01"]) {
      const reply = await post([USDC_FEED, "99000000", -8, bad])
      expect(reply.error?.code).toBe(-32602)
      expect(reply.error?.message).toContain("publish time")
    }
    expect((await update(USDC_FEED)).price).toBe(before.price)
  })
})
