/**
 * Before a borrow: every oracle the program's health check will read must hold a price no older than the bound,
 * by the chain's clock (read in the same call). The first stale one fails the build, named with its age.
 */
import type { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import { CLOCK_SYSVAR_ADDRESS, decodeClockUnixTimestamp } from "../oracle/chainClock.js"
import { FEEDS } from "../oracle/feeds.js"
import { priceUpdateOf } from "../oracle/oracleReads.js"
import { stalenessOf } from "../oracle/priceFreshness.js"
import type { ReadAccounts } from "./marketReads.js"

const symbolOf = (feedId: string, account: string) => FEEDS.find((feed) => feed.feedId === feedId)?.symbol ?? `feed at ${account}`

export const requireFreshOracles = (accounts: ReadAccounts, oracles: ReadonlyArray<PublicKey>, maxAgeSeconds: number) =>
  Effect.gen(function* () {
    const addresses = oracles.map((oracle) => oracle.toBase58())
    const [clock, ...priceAccounts] = yield* accounts([CLOCK_SYSVAR_ADDRESS, ...addresses])
    const chainTime = decodeClockUnixTimestamp(clock)
    for (const [i, account] of addresses.entries()) {
      const update = priceUpdateOf(priceAccounts[i])
      // a missing or unreadable price is the program's to refuse (7209): it names the account
      if (update === null) continue
      const stale = stalenessOf({ symbol: symbolOf(update.feedId, account), feedId: update.feedId, account, update, chainTime }, maxAgeSeconds)
      if (stale !== null) return yield* stale
    }
  })
