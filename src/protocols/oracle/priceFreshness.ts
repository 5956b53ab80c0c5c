/**
 * How old an oracle price may be when the service uses it (docs/decisions/oracle.md): its publish_time against
 * the chain's clock (Clock sysvar), at most ORACLE_MAX_PRICE_AGE_SECONDS. An older price, or one whose age cannot
 * be told because the clock could not be read, is not used: the consumer fails closed with this error.
 */
import { Data } from "effect"
import type { PriceUpdate } from "./priceUpdate.js"

/** Pyth's own examples bound a price at 60 s (get_price_no_older_than); the push oracle posts far more often. */
export const DEFAULT_MAX_PRICE_AGE_SECONDS = 60

export class StalePriceError extends Data.TaggedError("StalePriceError")<{
  readonly symbol: string
  readonly feedId: string
  readonly account: string
  readonly publishTime: bigint
  /** the chain's unix time when the price was read; null when the Clock sysvar could not be read */
  readonly chainTime: bigint | null
  /** seconds between publication and the chain's clock; null when the clock is unknown */
  readonly ageSeconds: number | null
  readonly maxAgeSeconds: number
  readonly message: string
}> {}

const staleMessage = (price: AgedPrice, maxAgeSeconds: number): string => {
  const feed = `oracle price of ${price.symbol} (Pyth feed ${price.feedId.slice(0, 8)}, account ${price.account})`
  const published = `published ${new Date(Number(price.update.publishTime) * 1000).toISOString()}`
  return price.chainTime === null
    ? `${feed} cannot be aged: the chain's clock (Clock sysvar) could not be read (${published})`
    : `${feed} is stale: ${price.chainTime - price.update.publishTime} s old by the chain's clock (${published}), above the ${maxAgeSeconds} s bound (ORACLE_MAX_PRICE_AGE_SECONDS)`
}

export interface AgedPrice {
  readonly symbol: string
  readonly feedId: string
  readonly account: string
  readonly update: PriceUpdate
  readonly chainTime: bigint | null
}

/** Null when the price may be used; a price published after the chain's clock (a clock behind Pyth's) is fresh. */
export const stalenessOf = (price: AgedPrice, maxAgeSeconds: number): StalePriceError | null =>
  price.chainTime !== null && price.chainTime - price.update.publishTime <= BigInt(maxAgeSeconds)
    ? null
    : new StalePriceError({
        symbol: price.symbol, feedId: price.feedId, account: price.account, publishTime: price.update.publishTime, chainTime: price.chainTime,
        ageSeconds: price.chainTime === null ? null : Number(price.chainTime - price.update.publishTime), maxAgeSeconds,
        message: staleMessage(price, maxAgeSeconds)
      })
