/**
 * Reads the Pyth price of mints from their PriceUpdateV2 accounts, with the chain's clock (Clock sysvar) in the
 * same read so each price can be aged (priceFreshness.ts). Null for a mint with no feed or no valid update.
 */
import { Effect } from "effect"
import type { AccountsReader } from "../amm/poolReads.js"
import { CLOCK_SYSVAR_ADDRESS, decodeClockUnixTimestamp } from "./chainClock.js"
import { feedOfMint } from "./feeds.js"
import type { AgedPrice } from "./priceFreshness.js"
import { decodePriceUpdate, feedAccountAddress, type PriceUpdate, PYTH_RECEIVER_PROGRAM_ID } from "./priceUpdate.js"

export type MintPrice = AgedPrice

/** A PriceUpdateV2 account's update: only the receiver program's accounts are price updates. */
export const priceUpdateOf = (account: { readonly owner: string; readonly data: Uint8Array } | null | undefined): PriceUpdate | null =>
  account === null || account === undefined || account.owner !== PYTH_RECEIVER_PROGRAM_ID.toBase58() ? null : decodePriceUpdate(account.data)

/** The chain's unix time now (Clock sysvar); null when it cannot be read. */
export const readChainTime = (read: AccountsReader) => Effect.map(read([CLOCK_SYSVAR_ADDRESS]), ([clock]) => decodeClockUnixTimestamp(clock))

export const readMintPrices = (read: AccountsReader, mints: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const feeds = mints.map(feedOfMint)
    const known = feeds.flatMap((feed) => (feed === undefined ? [] : [feed]))
    if (known.length === 0) return feeds.map(() => null)
    const [clock, ...accounts] = yield* read([CLOCK_SYSVAR_ADDRESS, ...known.map((feed) => feedAccountAddress(feed.feedId).toBase58())])
    const chainTime = decodeClockUnixTimestamp(clock)
    return feeds.map((feed): MintPrice | null => {
      if (feed === undefined) return null
      const update = priceUpdateOf(accounts[known.indexOf(feed)])
      // the feed id inside must be the one we asked for
      return update === null || update.feedId !== feed.feedId
        ? null
        : { symbol: feed.symbol, feedId: feed.feedId, account: feedAccountAddress(feed.feedId).toBase58(), update, chainTime }
    })
  })
