/**
 * Price accounts a program will judge a transaction on (a borrow's health check) must each hold a price no older
 * than the bound, by the chain's clock (read in the same call): checked at build and again before signing. The
 * first stale one fails, named with its age.
 */
import type { PublicKey } from "@solana/web3.js"
import { Effect } from "effect"
import type { AccountsReader } from "../amm/poolReads.js"
import { CLOCK_SYSVAR_ADDRESS, decodeClockUnixTimestamp } from "./chainClock.js"
import { FEEDS } from "./feeds.js"
import { priceUpdateOf } from "./oracleReads.js"
import { stalenessOf } from "./priceFreshness.js"

const symbolOf = (feedId: string, account: string) => FEEDS.find((feed) => feed.feedId === feedId)?.symbol ?? `feed at ${account}`

export const requireFreshOracles = (accounts: AccountsReader, oracles: ReadonlyArray<PublicKey>, maxAgeSeconds: number) =>
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
