/**
 * The local ledger's oracle: Pyth PriceUpdateV2 accounts (owned by the Pyth receiver program, at the push
 * oracle's shard-0 addresses) seeded for the test mints, and `setPythPriceUpdate` so an operator moves a price
 * (through the service's PUT /api/v1/oracle/prices). A local-ledger method, like requestAirdrop: a real cluster's
 * prices come from Pyth's own posting.
 *
 * Like Pyth's push oracle, the ledger keeps its feeds live (docs/decisions/oracle.md): `refreshPriceFeeds` posts
 * every feed's current price again at the chain's clock, so the service's price-age bound never finds a dev
 * ledger's seeded prices stale. A feed posted with an explicit publishTime is stalled at that time instead (a
 * halted publisher, how tests and operators try staleness) until a post without one, or the ledger's restart.
 */
import { address, lamports } from "@solana/kit"
import type { LiteSVM } from "litesvm"
import { SEED_AUTHORITY } from "../protocols/amm/localPools.js"
import { FEEDS } from "../protocols/oracle/feeds.js"
import {
  decodePriceUpdate, encodePriceUpdate, feedAccountAddress, PRICE_UPDATE_V2_SIZE, PYTH_RECEIVER_PROGRAM_ID
} from "../protocols/oracle/priceUpdate.js"
import { InvalidParamsError, requireString, type RpcHandler } from "./jsonRpc.js"
import type { Ledger } from "./ledger.js"

/** The chain's clock (the Clock sysvar the ledger keeps at wall-clock time), unix seconds. */
const chainNow = (svm: LiteSVM): bigint => svm.getClock().unixTimestamp

export const writePriceUpdate = (
  svm: LiteSVM, feedId: string, price: bigint, exponent: number, slot: bigint, publishTime: bigint = chainNow(svm)
): string => {
  const key = feedAccountAddress(feedId)
  const data = encodePriceUpdate({ feedId, price, conf: price / 1000n, exponent, publishTime, postedSlot: slot }, SEED_AUTHORITY.publicKey)
  svm.setAccount({
    address: address(key.toBase58()),
    data,
    executable: false,
    lamports: lamports(svm.minimumBalanceForRentExemption(BigInt(PRICE_UPDATE_V2_SIZE))),
    programAddress: address(PYTH_RECEIVER_PROGRAM_ID.toBase58()),
    space: BigInt(PRICE_UPDATE_V2_SIZE)
  })
  return key.toBase58()
}

/** Seeds every known feed that has no account yet. */
export const seedPriceFeeds = (svm: LiteSVM): void => {
  for (const feed of FEEDS) {
    if (!svm.getAccount(address(feedAccountAddress(feed.feedId).toBase58())).exists) writePriceUpdate(svm, feed.feedId, feed.seedPrice, feed.seedExponent, 0n)
  }
}

/** Posts each live feed's current price again at the chain's clock (not the stalled ones); returns how many. */
export const refreshPriceFeeds = (ledger: Ledger): number => {
  let refreshed = 0
  for (const feed of FEEDS) {
    if (ledger.stalledFeeds.has(feed.feedId)) continue
    const account = ledger.svm.getAccount(address(feedAccountAddress(feed.feedId).toBase58()))
    const update = account.exists && account.programAddress === PYTH_RECEIVER_PROGRAM_ID.toBase58() ? decodePriceUpdate(account.data) : null
    if (update === null) continue
    writePriceUpdate(ledger.svm, feed.feedId, update.price, update.exponent, BigInt(ledger.slot))
    refreshed++
  }
  return refreshed
}

const optionalPublishTime = (params: unknown[]): bigint | undefined => {
  const value = params[3]
  if (value === undefined || value === null) return undefined
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new InvalidParamsError("Invalid params: publish time must be a non-negative integer (unix seconds)")
  }
  return BigInt(value)
}

export function oracleMethods(ledger: Ledger): Array<[string, RpcHandler]> {
  return [
    ["setPythPriceUpdate", (params) => {
      const feedId = requireString(params, 0, "feed id").toLowerCase()
      if (!/^[0-9a-f]{64}$/.test(feedId)) throw new InvalidParamsError("Invalid params: feed id must be 64 hex characters")
      const priceText = requireString(params, 1, "price")
      if (!/^[1-9][0-9]{0,17}$/.test(priceText)) throw new InvalidParamsError("Invalid params: price must be a positive integer string")
      const exponent = params[2]
      if (typeof exponent !== "number" || !Number.isInteger(exponent) || exponent < -18 || exponent > 0) {
        throw new InvalidParamsError("Invalid params: exponent must be an integer between -18 and 0")
      }
      const publishTime = optionalPublishTime(params)
      const account = writePriceUpdate(ledger.svm, feedId, BigInt(priceText), exponent, BigInt(ledger.slot), publishTime)
      // an explicit publish time stalls the feed there; a post without one makes it live again
      if (publishTime === undefined) ledger.stalledFeeds.delete(feedId)
      else ledger.stalledFeeds.add(feedId)
      ledger.dirty = true
      return { account }
    }]
  ]
}
