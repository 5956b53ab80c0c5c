/** Reads the Pyth price of a mint from its PriceUpdateV2 account; null when the mint has no feed or no valid update. */
import { Effect } from "effect"
import type { AccountsReader } from "../amm/poolReads.js"
import { feedOfMint } from "./feeds.js"
import { decodePriceUpdate, feedAccountAddress, type PriceUpdate, PYTH_RECEIVER_PROGRAM_ID } from "./priceUpdate.js"

export interface MintPrice {
  readonly symbol: string
  readonly account: string
  readonly update: PriceUpdate
}

export const readMintPrices = (read: AccountsReader, mints: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const feeds = mints.map(feedOfMint)
    const known = feeds.flatMap((feed) => (feed === undefined ? [] : [feed]))
    const accounts = known.length === 0 ? [] : yield* read(known.map((feed) => feedAccountAddress(feed.feedId).toBase58()))
    return feeds.map((feed): MintPrice | null => {
      if (feed === undefined) return null
      const account = accounts[known.indexOf(feed)] ?? null
      // only the receiver program's accounts are price updates; the feed id inside must be the one we asked for
      if (account === null || account.owner !== PYTH_RECEIVER_PROGRAM_ID.toBase58()) return null
      const update = decodePriceUpdate(account.data)
      return update === null || update.feedId !== feed.feedId ? null : { symbol: feed.symbol, account: feedAccountAddress(feed.feedId).toBase58(), update }
    })
  })
