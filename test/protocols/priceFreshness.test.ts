/** stalenessOf: a price may be used up to ORACLE_MAX_PRICE_AGE_SECONDS old by the chain's clock, and not when the clock is unknown. */
import { describe, expect, it } from "vitest"
import { type AgedPrice, stalenessOf } from "../../src/protocols/oracle/priceFreshness.js"

const FEED = "ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d"
const priced = (publishTime: bigint, chainTime: bigint | null): AgedPrice => ({
  symbol: "SOL", feedId: FEED, account: "SoLFeedAccount",
  update: { feedId: FEED, price: 15_000_000_000n, conf: 0n, exponent: -8, publishTime, postedSlot: 0n }, chainTime
})

describe("stalenessOf", () => {
  it("passes a price up to the bound, refuses one a second older naming the feed, its age and the bound", () => {
    expect(stalenessOf(priced(1_000n, 1_060n), 60)).toBeNull()
    // published after the chain's clock (a clock behind the publisher's): fresh
    expect(stalenessOf(priced(1_005n, 1_000n), 60)).toBeNull()
    const stale = stalenessOf(priced(1_000n, 1_061n), 60)
    expect(stale).toMatchObject({ _tag: "StalePriceError", symbol: "SOL", ageSeconds: 61, maxAgeSeconds: 60, publishTime: 1_000n })
    expect(stale?.message).toBe(
      "oracle price of SOL (Pyth feed ef0d8b6f, account SoLFeedAccount) is stale: 61 s old by the chain's clock (published 1970-01-01T00:16:40.000Z), above the 60 s bound (ORACLE_MAX_PRICE_AGE_SECONDS)"
    )
  })

  it("refuses any price when the chain's clock could not be read", () => {
    const unknown = stalenessOf(priced(1_000n, null), 60)
    expect(unknown?.ageSeconds).toBeNull()
    expect(unknown?.message).toContain("cannot be aged: the chain's clock (Clock sysvar) could not be read")
  })
})
